/**
 * readYamlFile gives what `yaml` parses, also when it comes from the cache of an earlier read,
 * and an edited file is read afresh (the cache is named by the text, not the path).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readYamlFile } from '../../src/shared/yamlCache.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

describe('readYamlFile', () => {
  it('reads the same value on later reads, and the new value after an edit', () => {
    const file = path.join(temporaryDirectory(), 'spec.yaml');
    const first = `openapi: 3.1.0\npaths:\n  /health:\n    get: { summary: "Is it up?", tags: [ops] }\nmarker: ${Date.now()}-${Math.random()}\n`;
    writeFileSync(file, first);
    expect(readYamlFile(file)).toEqual(parse(first));
    expect(readYamlFile(file)).toEqual(parse(first));
    const edited = first.replace('Is it up?', 'Is the service up?');
    writeFileSync(file, edited);
    expect(readYamlFile(file)).toMatchObject({ paths: { '/health': { get: { summary: 'Is the service up?' } } } });
  });

  it('keeps what JSON cannot hold, such as .nan and .inf, on every read', () => {
    const file = path.join(temporaryDirectory(), 'numbers.yaml');
    writeFileSync(file, `low: -.inf\nodd: .nan\nmarker: ${Math.random()}\n`);
    for (let read = 0; read < 2; read += 1) {
      const value = readYamlFile(file) as { low: number; odd: number };
      expect(value.low).toBe(Number.NEGATIVE_INFINITY);
      expect(value.odd).toBeNaN();
    }
  });
});
