/**
 * Names a client sends are echoed back and logged cut to a bounded length: an unknown tool with
 * a name of thousands of characters through POST /tools/:name answers 404 naming its first 100
 * characters, and the request's log line carries at most 200 characters of its path. (MCP over
 * stdio: test/mcp/stdio.test.ts.)
 */
import { Writable } from 'node:stream';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService } from '../../src/service.ts';
import { truncateForDisplay } from '../../src/shared/truncate.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

describe('an unknown tool with a very long name over HTTP', () => {
  it('answers 404 with the name cut to 100 characters, and logs at most 200 characters of the path', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)), done()) });
    const logger = pino({ level: 'info' }, sink);
    const service = await createService(loadConfig({ MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', APP_DB: path.join(temporaryDirectory('bounded-names-'), 'app.db') } as NodeJS.ProcessEnv), logger);
    try {
      const name = `no_such_tool_${'y'.repeat(8_000)}`;
      const response = await request(service.app).post(`/tools/${name}`).send({});
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: 'unknown_tool', message: `There is no tool named '${name.slice(0, 99)}…'.` });
      expect(JSON.stringify(response.body).length).toBeLessThan(2_000);
      const logged = lines.filter((line) => line.includes('no_such_tool_'));
      expect(logged.length).toBeGreaterThan(0);
      for (const line of logged) expect(line.length).toBeLessThan(1_000);
    } finally {
      await service.close();
    }
  }, 60_000);
});

describe('truncateForDisplay', () => {
  it('keeps short names, cuts long ones to the bound with an ellipsis, never inside a character', () => {
    expect(truncateForDisplay('query_source')).toBe('query_source');
    expect(truncateForDisplay('a'.repeat(100))).toBe('a'.repeat(100));
    expect(truncateForDisplay('a'.repeat(60_000))).toBe(`${'a'.repeat(99)}…`);
    expect(truncateForDisplay('😀'.repeat(150))).toBe(`${'😀'.repeat(99)}…`);
    expect(truncateForDisplay('😀'.repeat(80))).toBe('😀'.repeat(80));
  });
});
