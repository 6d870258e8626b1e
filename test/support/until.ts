/**
 * Waiting in tests for state that changes in the background (worker processes, file checks,
 * /health), by polling, with a bound and a message that says what never happened.
 */

/**
 * Polls `condition` every `intervalMs` until it holds; resolves with the ms it took.
 * @throws Error naming `what` after `timeoutMs`.
 * @example
 * const noticedMs = await until(() => pool.componentHealth().data.status === 'down', 2_000, 'down');
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string, intervalMs = 10): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return Date.now() - started;
}
