/**
 * The files `npm run skill:check` (check.ts) reads, and the places in them its problems point
 * at: a skill's source files and where a tool is declared, the test files and whether one
 * mentions a tool (the test rule), the line an import error names. Kept apart from the checks,
 * which decide what is a problem; this only finds files and lines.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A file's path and its text. */
export interface SourceFile {
  file: string;
  text: string;
}

/**
 * The skill's TypeScript files, tests excluded, index.ts first.
 * @example
 * sourceFiles('skills/data_quality').map((source) => source.file); // ['…/index.ts', '…/answers.ts', …]
 */
export function sourceFiles(directory: string): SourceFile[] {
  return walk(directory)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .sort((a, b) => Number(path.basename(b) === 'index.ts') - Number(path.basename(a) === 'index.ts') || a.localeCompare(b))
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/**
 * Where a tool is declared: the `occurrence`-th `name: 'x'` (a name declared twice has two), else
 * the first quoted 'x' anywhere.
 * @example
 * locateTool(sourceFiles(directory), 'forecast_cash'); // { file: '…/forecastCash.ts', line: 50 }
 */
export function locateTool(sources: readonly SourceFile[], name: string, occurrence = 0): { file: string; line: number } | undefined {
  const quoted = `(['"\`])${escapeRegExp(name)}\\1`;
  const declarations = sources.flatMap((source) =>
    [...source.text.matchAll(new RegExp(`\\bname\\s*:\\s*${quoted}`, 'g'))].map((match) => ({ file: source.file, line: lineAt(source.text, match.index) })),
  );
  if (declarations.length > 0) return declarations[Math.min(occurrence, declarations.length - 1)];
  for (const source of sources) {
    const match = new RegExp(quoted).exec(source.text);
    if (match) return { file: source.file, line: lineAt(source.text, match.index) };
  }
  return undefined;
}

/**
 * The `*.test.ts` files under the given folders, with their text.
 * @example
 * testFiles(['test', 'skills/data_quality']).length; // 120
 */
export function testFiles(directories: readonly string[]): SourceFile[] {
  return directories.flatMap((directory) => walk(directory).filter((file) => file.endsWith('.test.ts')).map((file) => ({ file, text: readFileSync(file, 'utf8') })));
}

/**
 * Whether a test's text names a tool: as a quoted string or in a `/tools/name` path (the test rule).
 * @example
 * mentionsTool("await call('forecast_cash', args)", 'forecast_cash'); // true
 * mentionsTool('POST /tools/forecast_cash_v2', 'forecast_cash'); // false
 */
export function mentionsTool(text: string, name: string): boolean {
  const escaped = escapeRegExp(name);
  return new RegExp(`(['"\`])${escaped}\\1|/tools/${escaped}(?![a-z0-9_])`).test(text);
}

/** Files under `directory`, recursively, skipping node_modules and dot folders. */
function walk(directory: string): string[] {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? walk(full) : entry.isFile() ? [full] : [];
  });
}

/**
 * The first `file:line` inside the skill folder mentioned by an import error (esbuild and Node both give one).
 * @example
 * errorLocation(error, '/project/skills/broken'); // { file: '/project/skills/broken/index.ts', line: 3 }
 */
export function errorLocation(error: unknown, directory: string): { file: string; line: number } | undefined {
  const text = `${(error as Error)?.message ?? ''}\n${(error as Error)?.stack ?? ''}`;
  const pattern = /(?:file:\/\/)?((?:[A-Za-z]:)?[^\s:()'"]+\.(?:ts|js|mts|mjs)):(\d+)(?::\d+)?/g;
  for (const match of text.matchAll(pattern)) {
    const file = path.resolve(decodeURIComponent(match[1]!.split('?')[0]!));
    if (file.startsWith(directory + path.sep)) return { file, line: Number(match[2]) };
  }
  return undefined;
}

/**
 * The line of the first match of `pattern` in a file.
 * @example
 * lineMatching('skills/data_quality/index.ts', /export\s+default/); // 12
 */
export function lineMatching(file: string, pattern: RegExp): number | undefined {
  const text = readFileSync(file, 'utf8');
  const match = pattern.exec(text);
  return match ? lineAt(text, match.index) : undefined;
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
