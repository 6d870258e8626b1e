/**
 * Reducers: a skill's algorithm that folds a stream of rows where the rows are (in the query
 * worker, next to the data), so a million keys never cross a process boundary. A skill
 * defines a reducer in a module of its own and sends a reference to it (module URL, export
 * name, options) with the query; the engine imports the module and runs it.
 */

export interface Reducer<Options, Row, State, Result> {
  start(options: Options): State;
  /** Returns the next state (or nothing, having changed the state in place). */
  step(state: State, row: Row): State | void;
  finish(state: State): Result;
}

/** What travels with a query: where the reducer is, and its options (plain JSON). */
export interface ReducerReference<Row, Result> {
  module: string;
  name: string;
  options: unknown;
  /** Type-only: the rows it takes and what it returns. */
  readonly types?: { row: Row; result: Result };
}

/** A reducer that knows where it is exported, so a query can refer to it. */
export interface DefinedReducer<Options, Row, State, Result> extends Reducer<Options, Row, State, Result> {
  readonly module: string;
  readonly name: string;
  /** A reference to this reducer with these options, to send with a query. */
  with(options: Options): ReducerReference<Row, Result>;
}

/**
 * Declares a reducer. Export it from its module under `name`; `moduleUrl` is the module's
 * `import.meta.url`. Options must be plain JSON: they travel to the query worker.
 * @example
 * export const sumA = defineReducer(import.meta.url, 'sumA', {
 *   start: (_options: Record<string, never>) => ({ total: 0 }),
 *   step: (state, row: MergedRow) => { state.total += row.a ?? 0; },
 *   finish: (state) => state.total,
 * });
 * const merged = await data.run({ kind: 'merge', ..., fold: sumA.with({}) });
 */
export function defineReducer<Options, Row, State, Result>(moduleUrl: string, name: string, reducer: Reducer<Options, Row, State, Result>): DefinedReducer<Options, Row, State, Result> {
  definedModules.add(moduleUrl);
  return { ...reducer, module: moduleUrl, name, with: (options) => ({ module: moduleUrl, name, options }) };
}

/** Modules that defined a reducer in this process, so a pool can build them before its first query. */
const definedModules = new Set<string>();

/** The module URLs of every reducer defined so far (workerBuild.ts builds them at pool start). */
export function definedReducerModules(): string[] {
  return [...definedModules];
}

const loaded = new Map<string, Reducer<unknown, unknown, unknown, unknown>>();

/** Imports the reducer a reference names (once per process). */
export async function loadReducer(reference: ReducerReference<unknown, unknown>): Promise<Reducer<unknown, unknown, unknown, unknown>> {
  const key = `${reference.module}#${reference.name}`;
  const cached = loaded.get(key);
  if (cached) return cached;
  if (!reference.module.startsWith('file:')) throw new Error(`a reducer module must be a file: URL (got ${JSON.stringify(reference.module)})`);
  const module = (await import(reference.module)) as Record<string, unknown>;
  const reducer = module[reference.name] as Reducer<unknown, unknown, unknown, unknown> | undefined;
  if (!reducer || typeof reducer.start !== 'function' || typeof reducer.step !== 'function' || typeof reducer.finish !== 'function') {
    throw new Error(`${reference.module} exports no reducer named '${reference.name}'`);
  }
  loaded.set(key, reducer);
  return reducer;
}

/** Runs a loaded reducer over rows fed one by one. */
export class Folding {
  private state: unknown;
  constructor(
    private readonly reducer: Reducer<unknown, unknown, unknown, unknown>,
    options: unknown,
  ) {
    this.state = reducer.start(options);
  }

  step(row: unknown): void {
    const next = this.reducer.step(this.state, row);
    if (next !== undefined) this.state = next;
  }

  finish(): unknown {
    return this.reducer.finish(this.state);
  }
}
