/**
 * A value made on first use, for what is costly to load and often never needed (Ajv, the agent
 * with LangChain): a start does not pay for it.
 */

/**
 * `make()` once, on the first call; the same value after. A rejected promise is made again on
 * the next call, so a failed import or load is retried rather than remembered.
 * @example
 * const loadAgent = once(() => import('../agent/runLoop.ts'));
 * const { runAgent } = await loadAgent();
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    if (made) return made.value;
    const value = make();
    made = { value };
    if (value instanceof Promise) value.catch(() => (made = undefined));
    return value;
  };
}
