import { describe, expect, it } from 'vitest';
import { BoundParameters, compileMerge, compileSelect, whereClause } from '../../src/data/compile.ts';
import { quoteIdentifier, sqliteDialect, type Dialect } from '../../src/data/dialect.ts';
import type { MergeQuery } from '../../src/data/query.ts';
import { collectMerged } from '../support/testReducers.ts';

/** A dialect with numbered markers, to show that parameters bind in reading order. */
const numbered: Dialect = { ...sqliteDialect, parameter: (position) => `$${position}` };

describe('compiling query descriptions', () => {
  it('quotes catalog identifiers and binds every value', () => {
    const { sql, params } = compileSelect(
      {
        kind: 'select',
        table: 'fi_reporting',
        columns: [{ name: 'company', column: 'compcode' }],
        aggregates: [{ name: 'amount', function: 'sum', column: 'cs_trn_lc' }],
        where: [
          { column: 'compcode', kind: 'in', values: ["1000' OR '1'='1"] },
          { column: 'fiscper', kind: 'range', from: '2024010', to: '2024012' },
        ],
        orderBy: [{ name: 'amount', direction: 'desc' }],
        limit: 100,
        countAll: true,
      },
      sqliteDialect,
    );
    expect(sql).toBe(
      'SELECT "compcode" AS "company", SUM("cs_trn_lc") AS "amount", COUNT(*) OVER () AS "__total" FROM "fi_reporting" WHERE "compcode" = ? AND "fiscper" >= ? AND "fiscper" <= ? GROUP BY "compcode" ORDER BY "amount" DESC, "company" ASC LIMIT ?',
    );
    expect(params).toEqual(["1000' OR '1'='1", '2024010', '2024012', 100]);
  });

  it('matches blank values as NULL or empty text, alongside listed values', () => {
    const parameters = new BoundParameters(sqliteDialect);
    expect(whereClause([{ column: 'prof_ctr', kind: 'in', values: ['PC1', null, 'PC2'] }], sqliteDialect, parameters)).toBe(
      'WHERE ("prof_ctr" IN (?, ?) OR "prof_ctr" IS NULL OR "prof_ctr" = \'\')',
    );
    expect(parameters.values).toEqual(['PC1', 'PC2']);
  });

  it('refuses identifiers that are not plain names, wherever they appear', () => {
    expect(() => quoteIdentifier('a"; DROP TABLE x; --')).toThrow(/unsafe SQL identifier/);
    expect(() => compileSelect({ kind: 'select', table: 't', columns: [{ name: 'x', column: 'a b' }] }, sqliteDialect)).toThrow(/unsafe SQL identifier/);
    expect(() => compileSelect({ kind: 'select', table: 't', columns: [{ name: 'x"y', column: 'a' }] }, sqliteDialect)).toThrow(/unsafe SQL identifier/);
  });

  it('numbers parameters in reading order: the repeated-keys CTE, counted conditions, WHERE, HAVING, LIMIT', () => {
    const { sql, params } = compileSelect(
      {
        kind: 'select',
        table: 't',
        columns: [{ name: 'doc', column: 'doc' }],
        aggregates: [
          { name: 'copies', function: 'count' },
          { name: 'placeholders', function: 'count', where: { column: 'pc', kind: 'in', values: ['#'] } },
        ],
        where: [{ column: 'company', kind: 'in', values: ['1000'] }],
        repeated: { columns: ['doc'], atLeast: 2 },
        having: [{ name: 'copies', atLeast: 2 }],
        limit: 10,
      },
      numbered,
    );
    const markers = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    expect(markers).toEqual([1, 2, 3, 4, 5, 6]);
    expect(params).toEqual(['1000', 2, '#', '1000', 2, 10]);
    expect(sql).toContain('JOIN "__repeated" ON "t"."doc" IS "__repeated"."__repeated_0"');
  });

  it('gives no row for an aggregate over nothing, rather than a total of null', () => {
    const { sql } = compileSelect({ kind: 'select', table: 't', aggregates: [{ name: 'n', function: 'count' }] }, sqliteDialect);
    expect(sql).toBe('SELECT COUNT(*) AS "n" FROM "t" HAVING COUNT(*) > 0');
  });

  it('binds constant keys of a merge as parameters and leaves a shared constant out of the grouping', () => {
    const query: MergeQuery = {
      kind: 'merge',
      keyNames: ['company', 'currency'],
      a: { table: 'a_t', measure: { function: 'sum', column: 'x' }, keys: [{ column: 'c' }, { literal: 'EUR' }], where: [{ column: 'c', kind: 'in', values: ['1000'] }] },
      b: { table: 'b_t', measure: { function: 'count', column: undefined }, keys: [{ column: 'c' }, { column: 'cur' }], where: [] },
      partitionKey: 1,
      decimals: 2,
      fold: collectMerged.with({ keep: 1 }),
    };
    const parameters = new BoundParameters(sqliteDialect);
    const merge = compileMerge(query, sqliteDialect, parameters);
    expect(merge.aligned).not.toContain('EUR');
    expect(merge.aligned).not.toContain('1000');
    expect(parameters.values).toEqual(['EUR', '1000']);
    expect(merge.aligned).toContain('NULL AS va, 1 AS vb FROM "b_t"');
    expect(merge.partitionKey).toBe('k1');

    const shared = compileMerge({ ...query, b: { ...query.b, keys: [{ column: 'c' }, { literal: 'EUR' }] } }, sqliteDialect, new BoundParameters(sqliteDialect));
    expect(shared.groupedKeys).toEqual(['k0']);
    expect(shared.partitionKey).toBeUndefined();
    expect(shared.constants.get(1)).toBe('EUR');
  });
});
