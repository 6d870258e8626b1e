/**
 * Public messages name files, never where they sit: a TLS file of a postgres:// URL that cannot
 * be read (sslrootcert=/…/missing-ca.pem) shows in GET /health and in the tool error by its file
 * name only, over real HTTP; and a data file's path never reaches either.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withoutFolders } from '../../src/shared/redact.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listeningServices } from '../support/listeningService.ts';

const services = listeningServices();
afterEach(() => services.closeAll());

describe('a TLS file that cannot be read', () => {
  it('is named by its file name in GET /health and in the tool error, never by its folders', async () => {
    const directory = temporaryDirectory('tls-files-');
    const missing = path.join(directory, 'missing-ca.pem');
    // Nothing listens on port 1: the connection is refused before the server matters, by the unreadable file.
    const { url } = await services.start({
      LOG_LEVEL: 'silent',
      MODEL_PROVIDER: 'offline',
      QUERY_WORKERS: '1',
      APP_DB: path.join(directory, 'app.db'),
      DATA_URL: `postgres://reader:long-secret-password@127.0.0.1:1/finance?sslmode=verify-full&sslrootcert=${missing}`,
    });
    const called = await fetch(`${url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'fi_reporting', filters: { company: '1000' } }) });
    const problem = JSON.stringify(await called.json());
    expect(problem).toContain('source_unavailable');
    expect(problem).toContain('missing-ca.pem');

    const health = (await (await fetch(`${url}/health`)).json()) as { data: { connections: unknown[] } };
    expect(health.data.connections).toEqual([
      expect.objectContaining({ name: 'default', status: 'down', reason: expect.stringContaining('TLS failed: cannot read missing-ca.pem, named by sslrootcert, sslcert or sslkey in the URL (ENOENT)') }),
    ]);
    for (const text of [problem, JSON.stringify(health)]) {
      expect(text).not.toContain(directory);
      expect(text).not.toContain('long-secret-password');
    }
  }, 60_000);
});

describe('withoutFolders', () => {
  it('cuts absolute paths to file names and leaves URLs and relative names alone', () => {
    expect(withoutFolders("ENOENT: no such file or directory, open '/etc/ssl/private/ca.pem'")).toBe("ENOENT: no such file or directory, open 'ca.pem'");
    expect(withoutFolders('IO Error: Cannot open file "/srv/data/finance.duckdb": No such file')).toBe('IO Error: Cannot open file "finance.duckdb": No such file');
    expect(withoutFolders('sqlite:/srv/data/finance.db')).toBe('sqlite:finance.db');
    expect(withoutFolders('C:\\data\\tls\\ca.pem is missing')).toBe('ca.pem is missing');
    for (const kept of ['postgres://db.internal:5432/finance', 'https://llm.example.com/v1/chat', 'data/sample.db', 'periods 2024/01/12']) expect(withoutFolders(kept)).toBe(kept);
  });
});
