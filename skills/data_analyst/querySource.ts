/**
 * query_source: one source's measures, aggregated and grouped by dimensions, filtered by
 * values, lists or ranges, in a deterministic order and capped in size.
 */
import { z } from 'zod';
import { aggregateOf, briefForModel, checkFilterValuesExist, closestMatch, defaultFiltersNote, defineTool, filtersArgument, findDimension, findMeasure, findSource, listedValuesNotHeld, MAX_ORDER_BY_CHARS, measureUnit, nameArgument, resolveFilters, roundAmount, ToolError, toWhere, type Measure, type Row, type Source, type ValueNotHeld } from '../../src/skills/api.ts';
import { presentQuery } from './presentations.ts';
import { appliedFilters, valuesNotHeld } from './schemas.ts';
import { describeQuery } from './summaries.ts';
import { DEFAULT_QUERY_ROWS, MAX_QUERY_ROWS, MAX_ROWS_CHARS } from './limits.ts';

const orderItem = z.strictObject({
  field: nameArgument(),
  direction: z.enum(['asc', 'desc']).default('asc'),
});

const input = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  measures: z.array(nameArgument()).min(1).max(10).optional().describe("default: the source's default measures"),
  dimensions: z.array(nameArgument()).max(8).optional().describe('group by; none: one total row'),
  filters: filtersArgument(),
  order_by: briefForModel(z.union([z.string().max(MAX_ORDER_BY_CHARS), z.array(z.union([nameArgument(), orderItem])).max(20)]).optional()).describe(
    'e.g. "amount desc, company"',
  ),
  limit: z.number().int().positive().optional().describe(`default ${DEFAULT_QUERY_ROWS}, at most ${MAX_QUERY_ROWS}`),
});

const output = z.object({
  source: z.string(),
  measures: z.array(z.object({ name: z.string(), aggregation: z.string(), unit: z.string() })),
  dimensions: z.array(z.string()),
  filters: appliedFilters,
  rows: z.array(z.record(z.string(), z.unknown())).describe('one per group: the dimensions and the measures'),
  row_count: z.number(),
  total_rows: z.number(),
  truncated: z.boolean(),
  values_not_held: valuesNotHeld.optional(),
  notes: z.array(z.string()).optional(),
  sql: z.string(),
});

export const querySource = defineTool({
  name: 'query_source',
  description: 'Totals of measures of one source, optionally grouped and filtered ("how much", "by company").',
  input,
  output,
  handler: async (args, context) => {
    const source = findSource(context.catalog, args.source);
    const measures = (args.measures ?? source.defaultMeasures).map((name) => findMeasure(source, name));
    const notes: string[] = [];
    const dimensions = uniqueDimensions(source, args.dimensions ?? [], measures, notes);
    const filters = resolveFilters(source, args.filters, { grouped: dimensions.map((d) => d.name) });
    const orderBy = parseOrderBy(args.order_by, [...dimensions.map((d) => d.name), ...measures.map((m) => m.name)]);
    const requested = args.limit ?? DEFAULT_QUERY_ROWS;
    if (requested > MAX_QUERY_ROWS) notes.push(`limit ${requested} was lowered to the maximum of ${MAX_QUERY_ROWS} rows.`);
    const limit = Math.min(requested, MAX_QUERY_ROWS);

    const result = await context.data.run({
      kind: 'select',
      table: source.table,
      connection: source.connection,
      columns: dimensions.map((d) => ({ name: d.name, column: d.column })),
      aggregates: measures.map((m) => aggregateOf(m.name, { function: m.aggregation, column: m.column })),
      where: toWhere(filters.conditions),
      orderBy,
      limit,
      countAll: true,
    }, context.signal);
    if (result.rows.length === 0) {
      await checkFilterValuesExist(source, filters.conditions, context);
      notes.push('No rows match this combination of filters (each filter value exists on its own).');
    }
    // A listed value no row holds would vanish silently from the figures: flagged and said.
    const notHeld: ValueNotHeld[] = result.rows.length > 0 ? await listedValuesNotHeld(source, filters.conditions, context) : [];
    for (const value of notHeld) notes.push(`${value.statement} The figures cover the other listed values only.`);
    const rows = result.rows.map((row) => roundMeasures(row, measures));
    const fitted = fitRows(rows);
    if (fitted.length < rows.length) notes.push(`Only the first ${fitted.length} rows fit in one result; narrow the filters or group by fewer dimensions.`);
    const defaults = defaultFiltersNote(filters.defaultsApplied, source.name);
    if (defaults) notes.push(defaults);
    return {
      source: source.name,
      measures: measures.map((m) => ({ name: m.name, aggregation: m.aggregation, unit: measureUnit(m) })),
      dimensions: dimensions.map((d) => d.name),
      filters: filters.applied,
      rows: fitted,
      row_count: fitted.length,
      total_rows: result.total ?? 0,
      truncated: (result.total ?? 0) > fitted.length,
      ...(notHeld.length ? { values_not_held: notHeld } : {}),
      ...(notes.length ? { notes } : {}),
      sql: result.sql,
    };
  },
  summarize: describeQuery,
  present: presentQuery,
});

/** Resolves dimension names and adds each local-currency measure's currency dimension. */
function uniqueDimensions(source: Source, names: string[], measures: Measure[], notes: string[]) {
  const dimensions = [...new Set(names)].map((name) => findDimension(source, name));
  for (const measure of measures) {
    const currency = measure.currencyDimension;
    if (currency && !dimensions.some((d) => d.name === currency)) {
      dimensions.push(findDimension(source, currency));
      notes.push(`Grouped by '${currency}' as well, so amounts in different currencies are never added together.`);
    }
  }
  return dimensions;
}

/** Accepts "amount desc", "-amount", ["company", {"field": "amount", "direction": "desc"}]. */
function parseOrderBy(value: z.infer<typeof input>['order_by'], fields: string[]): { name: string; direction: 'asc' | 'desc' }[] {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? value.split(',') : value;
  return items.map((item) => {
    let field: string;
    let direction: 'asc' | 'desc' = 'asc';
    if (typeof item === 'string') {
      const text = item.trim();
      const match = /^(-)?\s*([A-Za-z0-9_]+)(?:\s+(asc|desc|ascending|descending))?$/i.exec(text);
      if (!match) throw invalidOrder(text, fields);
      field = match[2]!;
      if (match[1] || match[3]?.toLowerCase().startsWith('desc')) direction = 'desc';
    } else {
      field = item.field;
      direction = item.direction;
    }
    if (!fields.includes(field)) throw invalidOrder(field, fields);
    return { name: field, direction };
  });
}

function invalidOrder(field: string, fields: string[]): ToolError {
  const closest = closestMatch(field, fields);
  return new ToolError('invalid_value', `Cannot order by '${field}': order_by must name a dimension or measure of this query.`, {
    hint: `${closest ? `Did you mean '${closest}'? ` : ''}Fields of this query: ${fields.join(', ')}. Write "amount desc" to sort descending.`,
    details: { argument: 'order_by', choices: fields, closest: closest ?? null },
  });
}


function roundMeasures(row: Row, measures: Measure[]) {
  const copy = { ...row };
  for (const m of measures) {
    const value = copy[m.name];
    if (typeof value === 'number') copy[m.name] = roundAmount(value);
  }
  return copy;
}

/** Keeps as many rows as fit the character budget. */
function fitRows<T>(rows: T[]): T[] {
  let size = 2;
  for (let index = 0; index < rows.length; index += 1) {
    size += JSON.stringify(rows[index]).length + 1;
    if (size > MAX_ROWS_CHARS) return rows.slice(0, index);
  }
  return rows;
}
