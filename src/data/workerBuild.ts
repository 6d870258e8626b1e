/**
 * The query worker as plain JavaScript. A worker started through tsx transpiles its modules at
 * run time: about 0.45 s of CPU before it can take a query, paid again for every worker that
 * replaces one killed mid-query. On a small machine those replacements slowed every other
 * key's queries (issue 19's fairness load). So the service builds the worker once per process
 * with esbuild (tens of milliseconds) and forks bare Node on the result (about 0.13 s).
 *
 * The skills' reducers (defineReducer) are TypeScript modules the worker imports by URL; each
 * is built the same way on first use, and rebuilt when one of its files changes (SKILLS_RELOAD):
 * at once when the skill is re-imported, within a second otherwise.
 * Builds are kept under node_modules/.cache/analyst-agent/, named by their content, so that
 * bare imports (better-sqlite3, pg, …) resolve from the project and several processes share
 * one copy; builds.json there lets a later process reuse them without running esbuild while
 * their files are unchanged. Where that folder cannot be written, workers start through tsx as
 * before. A service started by scripts/launch.mjs (`npm start`) forks the worker built with it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Query } from './query.ts';

/** How a worker process is started. */
export interface WorkerLaunch {
  script: string;
  execArgv: string[];
  /** Whether the script is built JavaScript (reducer modules must then be built too). */
  built: boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const sourceScript = path.join(here, 'queryWorker.ts');
const cacheRoot = path.resolve(here, '../../node_modules/.cache/analyst-agent');

/** The worker run through tsx: the fallback, and what a read-only install gets. */
export const TYPESCRIPT_LAUNCH: WorkerLaunch = { script: sourceScript, execArgv: ['--import', 'tsx'], built: false };

let launch: Promise<WorkerLaunch> | undefined;

/**
 * How to start a query worker: the built JavaScript worker, built on the first call of the process.
 *
 * @example
 * const { script, execArgv } = await workerLaunch();
 * fork(script, [databasePath], { execArgv });
 */
export function workerLaunch(): Promise<WorkerLaunch> {
  // Started by scripts/launch.mjs: the worker was built with the service, at install.
  const prebuilt = (globalThis as { [key: symbol]: { worker?: string } | undefined })[Symbol.for('analyst-agent.build')]?.worker;
  if (prebuilt !== undefined && existsSync(prebuilt)) launch ??= Promise.resolve({ script: prebuilt, execArgv: [], built: true });
  launch ??= bundle(sourceScript, true).then(
    (entry) => ({ script: entry, execArgv: [], built: true }),
    () => TYPESCRIPT_LAUNCH,
  );
  return launch;
}

interface BuiltModule {
  url: string;
  /** Every source file in the build, with its modification time then. */
  inputs: [string, number][];
}

/**
 * How long a built reducer is trusted before its files are looked at again. Checking them is a
 * stat of every file in the build, on the HTTP process's thread: done for every comparison it
 * was the largest share of a flood of comparisons' cost there (issue 19). A reloaded skill
 * imports its module under a new URL, which is checked at once.
 */
const CHANGE_CHECK_MS = 1_000;

const reducerModules = new Map<string, { built?: BuiltModule; building?: Promise<BuiltModule>; checked?: { url: string; at: number } }>();

/**
 * The query with its reducer (if any) pointing at built JavaScript, for a built worker:
 * synchronously when the reducer is built and unchanged (the usual case, so queries keep
 * their order in the wait line), else a promise of it once built.
 *
 * @example
 * const sent = withBuiltReducer(query);
 * worker.send({ id, query: sent instanceof Promise ? await sent : sent });
 */
export function withBuiltReducer<Q extends Query>(query: Q): Q | Promise<Q> {
  if (!('fold' in query) || !query.fold) return query;
  const fold = query.fold;
  const built = builtModule(fold.module);
  if (built === undefined) return query;
  const pointed = (module: BuiltModule): Q => ({ ...query, fold: { ...fold, module: module.url } });
  return built instanceof Promise ? built.then(pointed) : pointed(built);
}

/**
 * Builds the reducer modules defined so far (reducer.ts), so that the first comparison waits
 * for no build and keeps its place in the wait line. A module that fails here is built (and
 * its error reported) when a query uses it.
 */
export async function buildReducers(moduleUrls: readonly string[]): Promise<void> {
  await Promise.all(moduleUrls.map((url) => Promise.resolve(builtModule(url)).catch(() => undefined)));
}

/** The built module for a TypeScript module URL (undefined for any other URL). */
function builtModule(moduleUrl: string): BuiltModule | Promise<BuiltModule> | undefined {
  if (!moduleUrl.startsWith('file:') || !/\.ts(\?.*)?$/.test(moduleUrl)) return undefined;
  const source = fileURLToPath(moduleUrl.replace(/\?.*$/, ''));
  const entry = reducerModules.get(source) ?? {};
  reducerModules.set(source, entry);
  if (entry.built && entry.checked?.url === moduleUrl && Date.now() - entry.checked.at < CHANGE_CHECK_MS) return entry.built;
  entry.checked = { url: moduleUrl, at: Date.now() };
  if (entry.built && !changed(entry.built)) return entry.built;
  entry.built = undefined;
  entry.building ??= bundleModule(source).then(
    (module) => ((entry.built = module), (entry.building = undefined), module),
    (error: unknown) => {
      entry.building = undefined;
      throw error;
    },
  );
  return entry.building;
}

function changed(module: BuiltModule): boolean {
  return module.inputs.some(([file, modified]) => !existsSync(file) || statSync(file).mtimeMs !== modified);
}

async function bundleModule(source: string): Promise<BuiltModule> {
  const inputs = new Map<string, number>();
  const file = await bundle(source, false, inputs);
  return { url: pathToFileURL(file).href, inputs: [...inputs] };
}

/** What earlier processes built: entry (and split) → built file and its inputs' modification times. */
const indexFile = path.join(cacheRoot, 'builds.json');

type BuildIndex = Record<string, { file: string; inputs: [string, number][] }>;

function readIndex(): BuildIndex {
  try {
    return JSON.parse(readFileSync(indexFile, 'utf8')) as BuildIndex;
  } catch {
    return {};
  }
}

/** Records a build for later processes; two processes writing at once may lose one entry (rebuilt next time). */
function remember(key: string, file: string, inputs: Map<string, number>): void {
  try {
    const partial = `${indexFile}.${process.pid}`;
    writeFileSync(partial, JSON.stringify({ ...readIndex(), [key]: { file, inputs: [...inputs] } }));
    renameSync(partial, indexFile);
  } catch {
    // A cache that cannot be written only costs a build in the next process.
  }
}

/**
 * The built entry, from an earlier process's build when none of its files changed since: a start
 * then runs no esbuild at all (importing it and building the reducers cost about 0.1 s of CPU).
 * `split`: dynamic imports become chunks of their own, so the worker loads an engine's driver
 * (DuckDB's costs 0.5 s) only when a connection uses it.
 */
async function bundle(entry: string, split: boolean, inputs = new Map<string, number>()): Promise<string> {
  const key = `${entry}${split ? ' (split)' : ''}`;
  const known = readIndex()[key];
  if (known && existsSync(known.file) && !changed({ url: known.file, inputs: known.inputs })) {
    for (const [file, modified] of known.inputs) inputs.set(file, modified);
    return known.file;
  }
  const file = await build(entry, split, inputs);
  remember(key, file, inputs);
  return file;
}

/**
 * Builds one entry (with the project files it imports; packages stay imports) into the cache,
 * in a folder named by the output's hash, and returns the entry's built path.
 */
async function build(entry: string, split: boolean, inputs: Map<string, number>): Promise<string> {
  const esbuild = await import('esbuild');
  const name = path.basename(entry).replace(/\.ts$/, '');
  const result = await esbuild.build({
    entryPoints: { [name]: entry },
    bundle: true,
    splitting: split,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: cacheRoot,
    outExtension: { '.js': '.mjs' },
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const hash = createHash('sha256');
  for (const output of result.outputFiles) hash.update(output.path).update(output.contents);
  const folder = path.join(cacheRoot, hash.digest('hex').slice(0, 16));
  if (!existsSync(folder)) {
    // Written beside, then renamed: a process starting at the same moment sees all or nothing.
    const partial = `${folder}.${process.pid}.partial`;
    mkdirSync(partial, { recursive: true });
    for (const output of result.outputFiles) writeFileSync(path.join(partial, path.relative(cacheRoot, output.path)), output.contents);
    try {
      renameSync(partial, folder);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(folder)) throw error;
    }
  }
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(input);
    inputs.set(file, statSync(file).mtimeMs);
  }
  return path.join(folder, `${name}.mjs`);
}
