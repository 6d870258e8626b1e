/**
 * SQL injection, on every data engine (SQLite, DuckDB, PostgreSQL): every hostile string of the
 * corpus (and every wrongly typed value) goes through every argument of every tool, and as the
 * tool name, over `POST /tools/{name}` against the real service on the engine's private data
 * (injectionHarness.ts). Only built SELECT statements may run: no 500, no database error text
 * leaking, every returned statement is one SELECT/WITH with the hostile text bound (never
 * inlined). Afterwards the data is unchanged (file engines: byte-identical, same mtime, no file
 * beside it; PostgreSQL: same checksums through the admin URL), no ATTACH target appeared, and
 * the engine's own read-only guards are checked (injectionEngines.ts).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { attachTargetState, injectionEngines } from './injectionEngines.ts';
import { describeInjectionCorpus, useInjectionService } from './injectionHarness.ts';

describe.each((await injectionEngines()).map((engine) => [engine.name, engine] as const))('SQL injection through every tool argument on %s', (_name, engine) => {
  let directory = '';
  let data: Record<string, string> = {};
  let before: unknown;
  let attachTargetsBefore: Map<string, number | null>;

  beforeAll(async () => {
    directory = temporaryDirectory('analyst-security-');
    data = await engine.prepare(directory);
    before = await engine.fingerprint();
    attachTargetsBefore = attachTargetState();
  });
  // Registered before the service's hooks: runs after the service is closed.
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const target = useInjectionService(() => ({ directory, data }));

  describeInjectionCorpus(target);
  engine.readOnlyTests(target);

  it('leaves the data unchanged and creates no file', async () => {
    expect(await engine.fingerprint()).toEqual(before);
    expect(attachTargetState()).toEqual(attachTargetsBefore);
  });
});
