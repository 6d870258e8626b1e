/**
 * The contract lists every problem type the service can emit: each `/problems/…` the code
 * writes (src/, skills/) is in openapi.yaml's ProblemType enum and in its table of problem
 * types, with its status. (`/problems/shutting-down` was missing.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/config/config.ts';
import { problemTypes } from '../../src/http/problem.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const specText = readFileSync(path.join(projectRoot, 'openapi.yaml'), 'utf8');
const spec = parse(specText) as { components: { schemas: { ProblemType: { enum: string[] } } } };

describe('every problem type the service emits is in the contract', () => {
  const emitted = new Set<string>();
  for (const file of [...sourceFiles(path.join(projectRoot, 'src')), ...sourceFiles(path.join(projectRoot, 'skills'))]) {
    for (const match of readFileSync(file, 'utf8').matchAll(/'(\/problems\/[a-z-]+)'/g)) emitted.add(match[1]!);
  }

  it('finds the types written in the code, the shutdown one included', () => {
    expect(emitted).toContain('/problems/shutting-down');
    expect(emitted.size).toBeGreaterThanOrEqual(Object.keys(problemTypes).length);
  });

  it('lists each in the ProblemType enum and in the problem table with its status', () => {
    const declared = spec.components.schemas.ProblemType.enum;
    expect([...emitted].filter((type) => !declared.includes(type))).toEqual([]);
    for (const problem of Object.values(problemTypes)) {
      expect(specText, problem.type).toContain(`| \`${problem.type}\` | ${problem.status} |`);
    }
  });
});
