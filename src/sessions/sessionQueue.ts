/**
 * Turns of one session in this process, one after another in arrival order: the in-process half
 * of SessionStore.runExclusive, shared by both stores (the PostgreSQL store adds a lease across
 * processes inside it). The sessions with work queued are never expired.
 */
export class SessionQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /**
   * Runs `work` once every earlier piece of work on session `id` has settled (failed ones too).
   * @example
   * const queue = new SessionQueue();
   * await queue.run(sessionId, async () => store.appendTurn(sessionId, turn));
   */
  run<T>(id: string, work: () => Promise<T>): Promise<T> {
    const current = (this.tails.get(id) ?? Promise.resolve()).then(work, work);
    const settled = current.catch(() => undefined);
    this.tails.set(id, settled);
    return current.finally(() => {
      if (this.tails.get(id) === settled) this.tails.delete(id);
    });
  }

  /** The sessions with work running or waiting. */
  ids(): string[] {
    return [...this.tails.keys()];
  }
}
