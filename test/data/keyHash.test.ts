/**
 * The key hash of checksum bisection is one function on three engines: PostgreSQL's own
 * hashtextextended(…, 0) (whose low half is hashtext), and the implementation SQLite and DuckDB
 * get as key_hash. Checked on texts of every
 * length around lookup3's 12-byte blocks, accented, Asian and emoji text, and keys of several parts.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import { hashParts, hashPartsExtended, hashText } from '../../src/data/keyHash.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { withPostgres } from '../support/postgresClient.ts';

const texts = [
  ...Array.from({ length: 30 }, (_, length) => 'abcdefghijklmnopqrstuvwxyz0123'.slice(0, length)),
  '1000',
  'EUR',
  '0400015593\u001f3\u001fEUR',
  'Grüße aus Köln',
  '東京都',
  '😀 emoji',
  'x'.repeat(200),
  ' leading and trailing ',
];
const keys = [
  ['1000', '2024012', 'EUR'],
  ['', '', ''],
  ['\u001e', 'D1', 'USD'],
  ['Köln', '12345678901234', 'JPY'],
];

describe('the key hash', () => {
  it('is PostgreSQL’s hashtextextended and hashtext, byte for byte, for any text and for a key’s parts joined by U+001F', async () => {
    const { adminUrl } = await postgresUrls();
    const all = [...texts, ...keys.map((parts) => parts.join('\u001f'))];
    const server = await withPostgres(adminUrl, async (client) => (await client.query<{ h: number; x: string }>('SELECT hashtext(t) AS h, hashtextextended(t, 0)::text AS x FROM unnest($1::text[]) WITH ORDINALITY AS x(t, n) ORDER BY n', [all])).rows);
    expect([...texts.map(hashText), ...keys.map(hashParts)]).toEqual(server.map((row) => row.h));
    expect(all.map((text) => String(hashPartsExtended([text])))).toEqual(server.map((row) => row.x));
  });

  it('is computed alike by SQLite, DuckDB and PostgreSQL through each dialect’s key hash, and so are its halves', async () => {
    const file = path.join(temporaryDirectory(), 'keys.db');
    const db = new Database(file);
    db.exec('CREATE TABLE k (a TEXT, b TEXT, c TEXT)');
    for (const [a, b, c] of keys) db.prepare('INSERT INTO k VALUES (?, ?, ?)').run(a, b, c);
    db.close();
    const { adminUrl } = await postgresUrls();
    const connections = new Connections(
      [
        { name: 'sqlite', url: `sqlite:${file}` },
        { name: 'duckdb', url: 'duckdb:' },
        { name: 'postgres', url: adminUrl },
      ],
      { statementTimeoutMs: 10_000 },
    );
    try {
      const hashes: Record<string, string[][]> = {};
      for (const name of ['sqlite', 'duckdb', 'postgres']) {
        const engine = await connections.engine(name);
        const parts = ['a', 'b', 'c'].map((column) => engine.dialect.keyText(column));
        // DuckDB and PostgreSQL read the rows from literals; SQLite from its table.
        const rows = name === 'sqlite' ? 'k' : `(VALUES ${keys.map((key) => `(${key.map((part) => `'${part}'`).join(', ')})`).join(', ')}) AS k(a, b, c)`;
        // The halves as bisection takes them (compileBisection.ts), whatever the sign of the hash.
        const hash = engine.dialect.keyHash(parts);
        const columns = [hash, `(${hash}) & 4294967295`, `((${hash}) >> 32) & 4294967295`].map((column) => engine.dialect.keyText(column));
        hashes[name] = (await engine.all(`SELECT ${columns.join(', ')} FROM ${rows}`, [])).map((row) => row.map(String));
      }
      const extended = keys.map((parts) => hashPartsExtended(parts));
      expect(extended.filter((hash) => hash < 0n).length).toBeGreaterThan(0);
      const expected = extended.map((hash) => [hash, hash & 0xffffffffn, (hash >> 32n) & 0xffffffffn].map(String));
      expect(hashes.sqlite).toEqual(expected);
      expect(hashes.duckdb).toEqual(expected);
      expect(hashes.postgres).toEqual(expected);
    } finally {
      await connections.close();
    }
  });
});
