/**
 * Builds SQL text from plans. Identifiers come only from the catalog (validated as plain
 * names and quoted here); every value is a bound parameter, never part of the text.
 */

export type SqlValue = string | number | null;

export type WhereCondition =
  | { column: string; kind: 'in'; values: (string | null)[] }
  | { column: string; kind: 'range'; from: string | undefined; to: string | undefined };

export interface MeasureExpression {
  aggregation: 'sum' | 'count' | 'min' | 'max' | 'avg';
  /** Undefined for count(*). */
  column: string | undefined;
}

/** Quotes a catalog identifier. The catalog only admits [A-Za-z_][A-Za-z0-9_]*, so this cannot be escaped out of. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`refusing unsafe SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** `SUM("col")`, `COUNT(*)`, … */
export function aggregateExpression(measure: MeasureExpression): string {
  if (measure.aggregation === 'count') return measure.column ? `COUNT(${quoteIdentifier(measure.column)})` : 'COUNT(*)';
  return `${measure.aggregation.toUpperCase()}(${quoteIdentifier(measure.column ?? '')})`;
}

/** A WHERE clause (or '') and its parameters, in order. */
export function whereClause(conditions: readonly WhereCondition[]): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  for (const condition of conditions) {
    const column = quoteIdentifier(condition.column);
    if (condition.kind === 'range') {
      if (condition.from !== undefined) {
        parts.push(`${column} >= ?`);
        params.push(condition.from);
      }
      if (condition.to !== undefined) {
        parts.push(`${column} <= ?`);
        params.push(condition.to);
      }
      continue;
    }
    const present = condition.values.filter((v): v is string => v !== null);
    const wantsNull = present.length < condition.values.length;
    const options: string[] = [];
    if (present.length === 1) options.push(`${column} = ?`);
    if (present.length > 1) options.push(`${column} IN (${present.map(() => '?').join(', ')})`);
    // Blank values in SAP extracts arrive as NULL or as '': a "blank" filter matches both.
    if (wantsNull) options.push(`${column} IS NULL OR ${column} = ''`);
    params.push(...present);
    parts.push(options.length === 1 ? options[0]! : `(${options.join(' OR ')})`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}
