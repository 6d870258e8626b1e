/**
 * The last known state of each data connection, as the query pool learns it from the queries'
 * outcomes (the workers hold the connections; the pool sees what they answer). GET /health
 * reports it; a connection that is down makes the data degraded, not down: its sources fail,
 * the others answer.
 */
import type { ComponentHealth } from '../shared/health.ts';
import { DEFAULT_CONNECTION, type ConnectionState } from './connections.ts';
import type { Query } from './query.ts';
import type { WorkerReply } from './workerProtocol.ts';

export class ConnectionHealth {
  private readonly states = new Map<string, ConnectionState>();

  /** @param initial how the connections answered at startup */
  constructor(initial: readonly ConnectionState[] = []) {
    for (const state of initial) this.states.set(state.name, state);
  }

  list(): ConnectionState[] {
    return [...this.states.values()];
  }

  /**
   * The data component with the connections taken into account.
   * @example
   * connections.degrade({ status: 'ok' }); // { status: 'degraded', reason: "connection 'warehouse' (postgres) is down" }
   */
  degrade(data: ComponentHealth): ComponentHealth {
    const down = this.list().filter((state) => state.status === 'down');
    if (data.status !== 'ok' || down.length === 0) return data;
    return { status: 'degraded', reason: down.map((state) => `connection '${state.name}' (${state.engine}) is down`).join('; ') };
  }

  /** Notes what a query's outcome says about the connections it used. */
  note(query: Query, reply: WorkerReply): void {
    const used = query.kind === 'merge' ? [query.a.connection, query.b.connection] : [(query.kind === 'fold' ? query.select : query).connection];
    const failed = !reply.ok && reply.toolError?.code === 'source_unavailable' ? String(reply.toolError.details.connection ?? '') : undefined;
    for (const name of new Set(used.map((connection) => connection ?? DEFAULT_CONNECTION))) {
      const state = this.states.get(name);
      if (!state) continue;
      if (name === failed && !reply.ok) this.states.set(name, { ...state, status: 'down', reason: reply.message });
      else if (reply.ok || failed === undefined) this.states.set(name, { name: state.name, engine: state.engine, target: state.target, status: 'ok' });
    }
  }
}
