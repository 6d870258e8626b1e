/**
 * A DuckDB result streamed chunk by chunk (duckdbRows.ts, the row merge's and bisection's read of
 * a DuckDB side) holds the values the whole-result read holds: text short and long, ASCII or
 * not, empty and NULL, and numbers, decimals, dates and booleans converted alike, across chunks.
 */
import { describe, expect, it } from 'vitest';
import { openDuckdb } from '../../src/data/engines/duckdb.ts';

const texts = ['', 'EUR', 'abcdefghijkl', 'abcdefghijklm', 'Köln', 'Grüße aus Köln, 12 Zeichen+', '東京', '😀', 'tab\tand\u001fseparator', null];

describe('a DuckDB result streamed in chunks', () => {
  it('reads every value as the whole result does, text of every length and NULL included', async () => {
    const engine = await openDuckdb({ file: undefined, files: {} });
    try {
      const list = texts.map((text) => (text === null ? 'NULL' : `'${text.replaceAll("'", "''")}'`)).join(', ');
      // 5,000 rows: three chunks, each text in every position of a vector entry.
      const sql = `SELECT n, ([${list}])[n % ${texts.length} + 1] AS t, CAST(n AS BIGINT) * 1000000007 AS big, n / 8 AS half, CAST(n / 3 AS DECIMAL(18, 4)) AS amount, DATE '2026-01-01' + CAST(n % 365 AS INTEGER) AS day, n % 2 = 0 AS even FROM range(5000) AS r(n) ORDER BY n`;
      const streamed: unknown[][] = [];
      for await (const rows of engine.chunks(sql, [])) streamed.push(...rows);
      const whole = await engine.all(sql, []);
      expect(streamed).toHaveLength(5_000);
      expect(streamed).toEqual(whole);
      expect(new Set(streamed.map((row) => row[1]))).toEqual(new Set(texts));
      expect(streamed[1]).toEqual([1, 'EUR', 1_000_000_007, 0.125, 0.3333, whole[1]![5], false]);
    } finally {
      await engine.close();
    }
  });
});
