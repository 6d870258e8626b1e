/**
 * The import rule `npm run skill:check` enforces: a skill is one folder. Its files (tests
 * included) import packages (zod, node:…), their own folder's files and, from the service, only
 * the skill SDK, src/skills/api.ts. An import of any other file under src/, of another skill or
 * of anything else outside the folder is a problem naming the file, the line, the import and
 * what to import instead; the service's internals can then change without breaking a skill.
 * Type-only imports count too: a type from an internal module breaks a skill as surely.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../config/config.ts';
import type { SkillProblem } from './manifest.ts';
import { sourceFiles, testFiles } from './skillFiles.ts';

/** The one module of the service a skill may import. */
export const SKILL_SDK_PATH = path.join(projectRoot, 'src', 'skills', 'api.ts');

/** An import statement of a file: what it imports and from where. */
export interface ImportStatement {
  specifier: string;
  line: number;
  /** The names between braces as written (`type Source`, `listOf as listText`); empty for `import x from`, `import * as`, side effects and dynamic imports. */
  names: string[];
}

/**
 * The imports of a TypeScript file: `import … from`, `export … from`, `import '…'` and
 * `import('…')`, with their lines. Comments are left out, so an example in a JSDoc is not one.
 * @example
 * importsOf("import { z } from 'zod';\nimport type { Source } from '../../src/catalog/catalog.ts';")
 * // [{ specifier: 'zod', line: 1, names: ['z'] }, { specifier: '../../src/catalog/catalog.ts', line: 2, names: ['type Source'] }]
 */
export function importsOf(text: string): ImportStatement[] {
  const code = withoutComments(text);
  const found: (ImportStatement & { index: number })[] = [];
  const statement = /^[ \t]*(?:import|export)\b([^'";]*?)\bfrom\s*(['"])([^'"\n]+)\2/gm;
  for (const match of code.matchAll(statement)) {
    const braces = /\{([^}]*)\}/.exec(match[1]!);
    const typeOnly = /^\s*type\b/.test(match[1]!);
    const names = (braces ? braces[1]!.split(',') : [])
      .map((name) => name.trim().replace(/\s+/g, ' '))
      .filter(Boolean)
      .map((name) => (typeOnly && !name.startsWith('type ') ? `type ${name}` : name));
    found.push({ specifier: match[3]!, index: match.index, line: 0, names });
  }
  for (const match of code.matchAll(/^[ \t]*import\s*(['"])([^'"\n]+)\1/gm)) found.push({ specifier: match[2]!, index: match.index, line: 0, names: [] });
  for (const match of code.matchAll(/\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g)) found.push({ specifier: match[2]!, index: match.index, line: 0, names: [] });
  return found
    .sort((a, b) => a.index - b.index)
    .map(({ index, ...statement }) => ({ ...statement, line: lineAt(code, index) }));
}

/**
 * Problems with the imports of every file in a skill folder: one per import that leaves the
 * folder for anything but the SDK.
 * @example
 * importProblems('skills/top_accounts');
 * // [{ file: '…/topAccounts.ts', line: 3, message: "imports '../../src/catalog/catalog.ts' (src/catalog/catalog.ts), an internal module of the service: …" }]
 */
export function importProblems(directory: string, sdkPath: string = SKILL_SDK_PATH): SkillProblem[] {
  const folder = path.resolve(directory);
  const skillsDirectory = path.dirname(folder);
  const files = [...sourceFiles(folder), ...testFiles([folder])];
  const problems: SkillProblem[] = [];
  for (const { file, text } of files) {
    for (const statement of importsOf(text)) {
      const target = resolved(statement.specifier, file);
      if (target === undefined || inside(target, folder) || sameModule(target, sdkPath)) continue;
      problems.push({ file, line: statement.line, message: importMessage(statement, target, file, { skillsDirectory, sdkPath }) });
    }
  }
  return problems;
}

/** What the problem says: what was imported, why it may not be, and the SDK import to write instead. */
function importMessage(statement: ImportStatement, target: string, file: string, where: { skillsDirectory: string; sdkPath: string }): string {
  const sdk = sdkSpecifier(file, where.sdkPath);
  const names = statement.names.map((name) => name.replace(/\s+as\s+\S+$/, ''));
  const instead = names.length > 0 ? `import { ${names.join(', ')} } from '${sdk}'` : `import what it needs from '${sdk}'`;
  const shown = `'${statement.specifier}'${statement.specifier === shortPath(target) ? '' : ` (${shortPath(target)})`}`;
  if (inside(target, where.skillsDirectory)) {
    const other = path.relative(where.skillsDirectory, target).split(path.sep)[0];
    return `imports '${statement.specifier}' from another skill (${other}): a skill is one folder and imports no other skill — keep a copy of what it needs in this skill, or move what skills share into the skill SDK (src/skills/api.ts)`;
  }
  if (inside(target, path.join(projectRoot, 'src'))) {
    return `imports ${shown}, an internal module of the service: a skill imports the service only through the skill SDK, src/skills/api.ts — ${instead} (what the SDK does not export is not for skills: keep a copy in the skill, or ask for it in the SDK)`;
  }
  return `imports ${shown}, outside the skill's folder: a skill is one folder and imports only packages, its own files and the skill SDK (src/skills/api.ts) — ${instead}, or keep a copy of what it needs in the skill`;
}

/** The file an import names, or undefined for a package (`zod`, `node:fs`). */
function resolved(specifier: string, file: string): string | undefined {
  if (specifier.startsWith('file:')) return fileURLToPath(specifier);
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) return path.resolve(path.dirname(file), specifier);
  return undefined;
}

/** The SDK as the file should import it: relative inside the project (as the bundled skills do), absolute outside it (as skill:new writes). */
function sdkSpecifier(file: string, sdkPath: string): string {
  if (!inside(file, projectRoot)) return sdkPath.split(path.sep).join('/');
  const relative = path.relative(path.dirname(file), sdkPath).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** The SDK is one module whatever extension names it (api.ts, api.js once built). */
function sameModule(target: string, module: string): boolean {
  const bare = (file: string) => file.replace(/\.(?:ts|js|mts|mjs)$/, '');
  return bare(target) === bare(module);
}

function inside(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** A path relative to the project when inside it, with forward slashes. */
function shortPath(file: string): string {
  return inside(file, projectRoot) ? path.relative(projectRoot, file).split(path.sep).join('/') : file;
}

/** The text with comments and template literals blanked (newlines kept, so lines still count), strings kept. */
function withoutComments(text: string): string {
  let result = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const next = text[index + 1];
    if (char === '/' && next === '*') {
      const end = text.indexOf('*/', index + 2);
      const stop = end === -1 ? text.length : end + 2;
      result += text.slice(index, stop).replace(/[^\n]/g, ' ');
      index = stop;
    } else if (char === '/' && next === '/') {
      const end = text.indexOf('\n', index);
      const stop = end === -1 ? text.length : end;
      result += ' '.repeat(stop - index);
      index = stop;
    } else if (char === "'" || char === '"' || char === '`') {
      // A string is copied as it is up to its closing quote (an import's specifier is one); a
      // template literal is blanked, so code a test writes into a file is not taken for imports.
      let stop = index + 1;
      while (stop < text.length && text[stop] !== char && !(char !== '`' && text[stop] === '\n')) stop += text[stop] === '\\' ? 2 : 1;
      const literal = text.slice(index, stop + 1);
      result += char === '`' ? literal.replace(/[^\n]/g, ' ') : literal;
      index = stop + 1;
    } else {
      result += char;
      index += 1;
    }
  }
  return result;
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}
