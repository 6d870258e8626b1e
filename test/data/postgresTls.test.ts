/**
 * TLS to PostgreSQL as libpq's URL options promise it (README, "Data where it lives" and APP_DB),
 * against a real server of this file's own with `ssl=on` and test-only certificates made for the
 * run (test/support/tlsCertificates.sh: a server certificate for `localhost` only, signed by a
 * test CA): `require`
 * encrypts without checking the certificate, `verify-ca` checks the chain, `verify-full` the chain
 * and the host name, `disable` stays plain, a client certificate reaches the server, and a
 * refused certificate is a `source_unavailable` (data engine) or an APP_DB configuration error
 * (session store) that names the TLS problem and never the password.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { projectRoot } from '../../src/config/config.ts';
import { Connections } from '../../src/data/connections.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { connectLibpq, withLibpqTls } from '../../src/shared/postgresTls.ts';
import { ConfigurationError, ToolError } from '../../src/errors/index.ts';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import { startCluster } from '../../scripts/postgresCluster.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { withPostgres } from '../support/postgresClient.ts';

let certificates: string;
const fixture = (name: string) => path.join(certificates, name);
/** The server trusts every login (initdb -A trust): the password is only there to be kept out of errors. */
const PASSWORD = 'tls-test-Secret-77';

let cluster: Awaited<ReturnType<typeof startCluster>>;
/** A URL on the TLS server: `localhost` is the name its certificate is for, `127.0.0.1` a host it does not name. */
const urlOn = (host: 'localhost' | '127.0.0.1', query: string) => `postgres://postgres:${PASSWORD}@${host}:${cluster.port}/postgres?${query}`;

beforeAll(async () => {
  certificates = temporaryDirectory('analyst-tls-');
  execFileSync('sh', [path.join(projectRoot, 'test/support/tlsCertificates.sh'), certificates]);
  cluster = await startCluster({ tls: { certificateFile: fixture('server.crt'), keyFile: fixture('server.key'), clientCaFile: fixture('ca.crt') } });
  // What the connection reading it is: a table-like source the data layer can select from.
  await withPostgres(cluster.adminUrl, (client) => client.query('CREATE VIEW connection_security AS SELECT ssl, version, client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()'));
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(certificates, { recursive: true, force: true });
});

/** The data engine's own connection, as the data layer reads it: TLS or not, its version, the client certificate's subject. */
async function securityOf(url: string): Promise<{ ssl: boolean; version: string | null; client_dn: string | null }> {
  const data = createDataAccess(new Connections([{ name: 'default', url }], { statementTimeoutMs: 10_000 }));
  try {
    const { rows } = await data.run({ kind: 'select', table: 'connection_security', columns: [{ name: 'ssl', column: 'ssl' }, { name: 'version', column: 'version' }, { name: 'client_dn', column: 'client_dn' }] });
    return rows[0] as { ssl: boolean; version: string | null; client_dn: string | null };
  } finally {
    await data.close();
  }
}

/** The error of a query on a connection that cannot be opened. */
async function refusal(url: string): Promise<unknown> {
  return securityOf(url).then(
    () => 'connected',
    (error: unknown) => error,
  );
}

describe('TLS to a PostgreSQL data source', () => {
  it('encrypts with sslmode=require without checking the certificate (libpq), and with prefer too', async () => {
    // No CA given and a host the certificate does not name: libpq connects all the same.
    expect(await securityOf(urlOn('127.0.0.1', 'sslmode=require'))).toMatchObject({ ssl: true, version: expect.stringMatching(/^TLSv1\.[23]$/) });
    expect(await securityOf(urlOn('127.0.0.1', 'sslmode=prefer'))).toMatchObject({ ssl: true });
  });

  it('stays plain with sslmode=disable, and tries TLS first without sslmode, like libpq (prefer)', async () => {
    expect(await securityOf(urlOn('127.0.0.1', 'sslmode=disable'))).toMatchObject({ ssl: false, version: null });
    expect(await securityOf(urlOn('127.0.0.1', ''))).toMatchObject({ ssl: true });
  });

  it('connects in plain text with prefer, or no sslmode, to a server without TLS, and refuses require there', async () => {
    // The shared test server has no TLS (test/support/postgresServer.ts).
    const plainServer = (await postgresUrls()).readerUrl;
    for (const url of [plainServer, `${plainServer}?sslmode=prefer`]) {
      const { client } = await connectLibpq({ connectionString: withLibpqTls(url) });
      try {
        expect((await client.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows).toEqual([{ ssl: false }]);
      } finally {
        await client.end();
      }
      const data = createDataAccess(new Connections([{ name: 'default', url }], { statementTimeoutMs: 10_000 }));
      try {
        expect((await data.run({ kind: 'select', table: 'fx_rates', aggregates: [{ name: 'rows', function: 'count' }] })).rows[0]).toMatchObject({ rows: expect.any(Number) });
      } finally {
        await data.close();
      }
    }
    const refused = await refusal(`${plainServer}?sslmode=require`);
    expect((refused as Error).message).toMatch(/TLS failed: the server does not accept TLS connections; sslmode=disable connects without TLS/);
  });

  it('verifies the chain and the host name with sslmode=verify-full and the right sslrootcert; verify-ca checks the chain only', async () => {
    expect(await securityOf(urlOn('localhost', `sslmode=verify-full&sslrootcert=${fixture('ca.crt')}`))).toMatchObject({ ssl: true });
    expect(await securityOf(urlOn('127.0.0.1', `sslmode=verify-ca&sslrootcert=${fixture('ca.crt')}`))).toMatchObject({ ssl: true });
  });

  it('presents a client certificate from sslcert and sslkey', async () => {
    const query = `sslmode=verify-full&sslrootcert=${fixture('ca.crt')}&sslcert=${fixture('client.crt')}&sslkey=${fixture('client.key')}`;
    expect(await securityOf(urlOn('localhost', query))).toMatchObject({ ssl: true, client_dn: '/CN=analyst_reader' });
  });

  it('refuses a certificate from another CA, or for another host, as source_unavailable naming the TLS problem and not the password', async () => {
    const wrongCa = await refusal(urlOn('localhost', `sslmode=verify-full&sslrootcert=${fixture('other-ca.crt')}`));
    expect(ToolError.isInstance(wrongCa) && wrongCa.code).toBe('source_unavailable');
    expect((wrongCa as Error).message).toMatch(/TLS failed: the server's certificate was not accepted \((self-signed certificate in certificate chain|unable to verify the first certificate)\); sslrootcert must name the CA/);
    // libpq: require with a root certificate checks the chain like verify-ca.
    const requireWrongCa = await refusal(urlOn('127.0.0.1', `sslmode=require&sslrootcert=${fixture('other-ca.crt')}`));
    expect((requireWrongCa as Error).message).toMatch(/TLS failed: the server's certificate was not accepted/);
    const wrongHost = await refusal(urlOn('127.0.0.1', `sslmode=verify-full&sslrootcert=${fixture('ca.crt')}`));
    expect(ToolError.isInstance(wrongHost) && wrongHost.code).toBe('source_unavailable');
    expect((wrongHost as Error).message).toMatch(/TLS failed: the server's certificate is not for the host name in the URL \(.*127\.0\.0\.1.*\)/);
    for (const error of [wrongCa, requireWrongCa, wrongHost]) expect(JSON.stringify({ message: (error as Error).message, ...(error as object) })).not.toContain(PASSWORD);
  });

  it("reads sslmode as libpq, prefer when none is given, and leaves node-postgres' own sslmode=no-verify or an explicit uselibpqcompat as written", () => {
    expect(withLibpqTls('postgres://u:p@db/fi?sslmode=require')).toBe('postgres://u:p@db/fi?sslmode=require&uselibpqcompat=true');
    expect(withLibpqTls('postgres://u:p@db/fi')).toBe('postgres://u:p@db/fi?sslmode=prefer&uselibpqcompat=true');
    // No host before the path (it is in `host`, e.g. a Unix socket): read as pg-connection-string does.
    expect(withLibpqTls('postgres://u:p@/fi?host=db.internal&sslmode=require')).toBe('postgres://u:p@/fi?host=db.internal&sslmode=require&uselibpqcompat=true');
    for (const url of ['postgres://u:p@db/fi?sslmode=no-verify', 'postgres://u:p@db/fi?sslmode=require&uselibpqcompat=false']) expect(withLibpqTls(url)).toBe(url);
  });
});

describe('TLS to the PostgreSQL session store (APP_DB)', () => {
  it('keeps every connection of the store encrypted with sslmode=require', async () => {
    const store = await openPostgresStore({ url: urlOn('127.0.0.1', 'sslmode=require'), ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
    try {
      await store.create('someone');
      const connections = await withPostgres(cluster.adminUrl, async (client) => (await client.query("SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'analyst-agent sessions'")).rows);
      expect(connections.length).toBeGreaterThan(0);
      expect(connections).toEqual(connections.map(() => ({ ssl: true })));
    } finally {
      await store.close();
    }
  });

  it('refuses to open on a certificate that fails verify-full, as an APP_DB error naming TLS and not the password', async () => {
    const error = await openPostgresStore({ url: urlOn('localhost', `sslmode=verify-full&sslrootcert=${fixture('other-ca.crt')}`), ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 }).then(
      async (store) => {
        await store.close();
        return 'opened';
      },
      (failure: unknown) => failure,
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^APP_DB: postgres:\/\/localhost:\d+\/postgres cannot be opened as the application database: TLS failed: the server's certificate was not accepted/);
    expect((error as Error).message).not.toContain(PASSWORD);
  });
});
