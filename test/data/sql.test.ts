import { describe, expect, it } from 'vitest';
import { buildAggregateSql } from '../../src/data/aggregate.ts';
import { buildComparisonSql } from '../../src/data/reconciliation.ts';
import { quoteIdentifier, whereClause } from '../../src/data/sql.ts';

describe('SQL building', () => {
  it('quotes catalog identifiers and binds every value', () => {
    const { sql, params } = buildAggregateSql({
      table: 'fi_reporting',
      groupBy: [{ name: 'company', column: 'compcode' }],
      measures: [{ name: 'amount', aggregation: 'sum', column: 'cs_trn_lc' }],
      where: [
        { column: 'compcode', kind: 'in', values: ["1000' OR '1'='1"] },
        { column: 'fiscper', kind: 'range', from: '2024010', to: '2024012' },
      ],
      orderBy: [{ name: 'amount', direction: 'desc' }],
      limit: 100,
    });
    expect(sql).toBe(
      'SELECT "compcode" AS "company", SUM("cs_trn_lc") AS "amount", COUNT(*) AS "__matched", COUNT(*) OVER () AS "__groups" FROM "fi_reporting" WHERE "compcode" = ? AND "fiscper" >= ? AND "fiscper" <= ? GROUP BY "compcode" ORDER BY "amount" DESC, "company" ASC LIMIT ?',
    );
    expect(params).toEqual(["1000' OR '1'='1", '2024010', '2024012', 100]);
  });

  it('matches blank values as NULL or empty text, alongside listed values', () => {
    const { sql, params } = whereClause([{ column: 'prof_ctr', kind: 'in', values: ['PC1', null, 'PC2'] }]);
    expect(sql).toBe('WHERE ("prof_ctr" IN (?, ?) OR "prof_ctr" IS NULL OR "prof_ctr" = \'\')');
    expect(params).toEqual(['PC1', 'PC2']);
  });

  it('refuses identifiers that are not plain names', () => {
    expect(() => quoteIdentifier('a"; DROP TABLE x; --')).toThrow(/unsafe SQL identifier/);
    expect(quoteIdentifier('cs_trn_lc')).toBe('"cs_trn_lc"');
  });

  it('binds constant keys of a comparison as parameters too', () => {
    const { sql, params } = buildComparisonSql({
      keyNames: ['company', 'currency'],
      a: { table: 'a_t', measure: { aggregation: 'sum', column: 'x' }, keys: [{ column: 'c' }, { literal: 'EUR' }], where: [{ column: 'c', kind: 'in', values: ['1000'] }] },
      b: { table: 'b_t', measure: { aggregation: 'count', column: undefined }, keys: [{ column: 'c' }, { column: 'cur' }], where: [] },
      thresholds: { match: { absolute: 0, percent: 0 }, minor: { absolute: 0, percent: 0 } },
      top: 5,
      currencyKeyIndex: 1,
    });
    expect(sql).not.toContain('EUR');
    expect(sql).not.toContain('1000');
    expect(sql).not.toMatch(/\b5\b/);
    // rows to keep and the four thresholds (arguments of the final aggregate), then the literal and the filter value
    expect(params).toEqual([5, 0, 0, 0, 0, 'EUR', '1000']);
    expect(sql).toContain('NULL AS va, 1 AS vb FROM "b_t"');
  });
});
