/**
 * docs/skills.md is what an engineer adding a skill reads: every file it names must exist, and
 * every name its SDK table says src/skills/api.ts exports must be exported there (a value or a
 * type), so a refactor that moves a file or drops an export fails here instead of leaving the
 * guide pointing at nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';

const text = readFileSync(path.join(projectRoot, 'docs/skills.md'), 'utf8');

/** Every name src/skills/api.ts exports, values and types, as the TypeScript compiler sees them. */
function sdkExports(): string[] {
  const file = path.join(projectRoot, 'src/skills/api.ts');
  const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(symbol).map((exported) => exported.name);
}

describe('docs/skills.md', () => {
  it('names only files that exist', () => {
    // Paths as the guide writes them: `src/skills/api.ts`, skills/data_analyst/questions.ts, …
    const named = [...new Set([...text.matchAll(/\b((?:src|skills|test|web|data|scripts|docs|bench)\/[\w./-]*\.(?:ts|js|md|yaml|json))\b/g)].map((match) => match[1]!))];
    // A new skill's own files are examples of what skill:new writes, not files of this repository.
    const examples = named.filter((file) => /^skills\/(cash_flow|my_skill|top_accounts|<)/.test(file));
    const missing = named.filter((file) => !examples.includes(file) && !existsSync(path.join(projectRoot, file)));
    expect(named.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('lists in its SDK table only names the skill SDK (src/skills/api.ts) exports', () => {
    const section = text.slice(text.indexOf('### The skill SDK'), text.indexOf('### ', text.indexOf('### The skill SDK') + 4));
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| topic') && !line.startsWith('| ---'));
    const listed = rows.flatMap((row) => [...row.slice(row.lastIndexOf(' | ')).matchAll(/`(\w+)`/g)].map((match) => match[1]!));
    // The table covers each topic a skill author uses.
    expect(rows.map((row) => row.split(' | ')[0]!.replace(/^\| /, '').replace(/ \(.*$/, ''))).toEqual([
      'tools and skills',
      'tool inputs and errors',
      'the catalog',
      'data blocks',
      'the duplicate search',
      'answer text',
      'question forms',
      'presentation',
      'durable records',
      'schedules',
      'pages beside the chat',
      'testing',
    ]);
    expect(listed.length).toBeGreaterThan(80);
    const exported = new Set(sdkExports());
    expect(listed.filter((name) => !exported.has(name))).toEqual([]);
  });
});
