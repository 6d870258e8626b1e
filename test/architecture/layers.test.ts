/**
 * Data flows one way: every import in src/ goes from a layer to a lower one, in the order
 * docs/layout.md writes down. Parses the imports with the TypeScript compiler (type imports,
 * re-exports and dynamic imports count; text inside strings does not) and names each import
 * that runs the wrong way, with the rule it breaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';

interface Module {
  name: string;
  rank: number;
  /** Project-relative paths: a folder ends in '/'. */
  paths: string[];
}

/** The table of docs/layout.md: `| 3 | logging | `src/logging/` | … |`. */
function layersOfDoc(): Module[] {
  const text = readFileSync(path.join(projectRoot, 'docs/layout.md'), 'utf8');
  return [...text.matchAll(/^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|([^|]*)\|/gm)].map((row) => ({
    rank: Number(row[1]),
    name: row[2]!,
    paths: [...row[3]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!),
  }));
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module specifier the file imports or re-exports, statically, by type or dynamically. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The module a project-relative file belongs to: the one with the longest matching path. */
function moduleOf(file: string, modules: Module[]): Module | undefined {
  let best: { module: Module; length: number } | undefined;
  for (const module of modules) {
    for (const entry of module.paths) {
      const matches = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (matches && (!best || entry.length > best.length)) best = { module, length: entry.length };
    }
  }
  return best?.module;
}

describe('the layers of src/ (docs/layout.md)', () => {
  const modules = layersOfDoc();
  const files = sourceFiles(path.join(projectRoot, 'src')).map((file) => path.relative(projectRoot, file).split(path.sep).join('/'));

  it('reads the layer table of docs/layout.md', () => {
    expect(modules.map((module) => module.name)).toEqual(expect.arrayContaining(['shared', 'config', 'sessions', 'agent', 'http', 'mcp', 'service']));
  });

  it('places every file of src/ in a module', () => {
    expect(files.filter((file) => moduleOf(file, modules) === undefined)).toEqual([]);
  });

  it('has no import from a lower layer to a higher one, nor between modules of one layer', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const from = moduleOf(file, modules);
      if (!from) continue;
      for (const specifier of importsOf(path.join(projectRoot, file))) {
        if (!specifier.startsWith('.')) continue; // packages and node: builtins
        const target = path.relative(projectRoot, path.resolve(projectRoot, path.dirname(file), specifier)).split(path.sep).join('/');
        if (!target.startsWith('src/')) continue; // e.g. the sample data builder under data/
        const to = moduleOf(target, modules);
        checked += 1;
        if (!to || to === from) continue;
        if (to.rank > from.rank) {
          broken.push(`${file} imports '${specifier}': ${from.name} (layer ${from.rank}) must not import ${to.name} (layer ${to.rank}, above it)`);
        } else if (to.rank === from.rank) {
          broken.push(`${file} imports '${specifier}': ${from.name} and ${to.name} share layer ${from.rank} and must not import each other`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken, `imports that run the wrong way (see docs/layout.md):\n  ${broken.join('\n  ')}\n`).toEqual([]);
  });
});
