/**
 * Filters on dimensions: the argument shape tools accept, and its resolution against a
 * source into conditions the SQL builder can bind (equality, value lists, ranges, NULL).
 */
import { z } from 'zod';
import { ToolError } from '../errors/index.ts';
import { findDimension, type Dimension, type FilterScalar, type Source } from './catalog.ts';
import { describePeriod, FISCAL_CALENDAR, parsePeriod, parsePeriodSpan, storedSpelling } from './periods.ts';
import type { Filter } from '../data/query.ts';
import { MAX_FILTER_DIMENSIONS, MAX_FILTER_VALUES, MAX_NAME_CHARS, MAX_VALUE_CHARS } from '../shared/inputLimits.ts';

const scalar = z.union([z.string().max(MAX_VALUE_CHARS), z.number(), z.boolean()]);
const range = z
  .strictObject({
    from: scalar.optional().describe('inclusive lower bound'),
    to: scalar.optional().describe('inclusive upper bound'),
  })
  .refine((r) => r.from !== undefined || r.to !== undefined, { error: 'a range needs from, to, or both' });

/** One filter value: a value, null (blank), a list of values, or an inclusive range. */
export const filterValueSchema = z.union([scalar, z.null(), z.array(z.union([scalar, z.null()])).min(1).max(MAX_FILTER_VALUES), range]);

/** Keys that name no dimension but an object's machinery; zod drops `__proto__` silently, so it is refused here. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Refuses a reserved key (`__proto__`, `constructor`, `prototype`) in an object of dimension
 * names the way an unknown dimension is refused, before zod would silently drop `__proto__`.
 * Returns the value unchanged otherwise, so it can run as a zod preprocess step.
 * @throws ToolError unknown_dimension
 * @example
 * const filters = z.preprocess(refuseReservedKeys, z.record(z.string(), z.string()));
 */
export function refuseReservedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  for (const key of Object.keys(value)) {
    if (!RESERVED_KEYS.has(key)) continue;
    throw new ToolError('unknown_dimension', `Dimension '${key}' does not exist.`, {
      hint: 'Use dimension names as the catalog lists them, e.g. {"company": "1000", "period": "2024012"}.',
      details: { dimension: key },
    });
  }
  return value;
}

/** `{dimension: value}`; all conditions must hold. */
export const filtersSchema = z
  .preprocess(refuseReservedKeys, z.record(z.string().max(MAX_NAME_CHARS), filterValueSchema).refine((filters) => Object.keys(filters).length <= MAX_FILTER_DIMENSIONS, { error: `at most ${MAX_FILTER_DIMENSIONS} dimensions can be filtered` }))
  .describe(
    'Dimension filters, all must hold. Value forms: "1000" (equals), ["1000","2000"] (any of), {"from":"2024010","to":"2024012"} (inclusive range), null (blank). Periods also accept "December 2024", "2024-12", "Q4 2024", "2024".',
  );

export type FilterInput = z.infer<typeof filtersSchema>;

export type Condition =
  | { dimension: Dimension; kind: 'in'; values: (string | null)[] }
  | { dimension: Dimension; kind: 'range'; from: string | undefined; to: string | undefined };

export interface ResolvedFilters {
  conditions: Condition[];
  /** The filters as applied, normalised (periods as YYYYPPP), defaults included. */
  applied: Record<string, unknown>;
  /** Catalog defaults that were applied because the caller did not filter that dimension. */
  defaultsApplied: Record<string, unknown>;
}

/**
 * Resolves filters for one source: checks dimension names, normalises values and adds the
 * source's default filters (e.g. version = ACTUAL) for dimensions the caller left open. A filter
 * on a dimension the source implies (FI is all version ACTUAL) holds for every row with that
 * value and is applied without a condition; any other value is one the source does not hold.
 * `grouped`: dimensions the result is broken down by, whose defaults are left out ("by version"
 * lists every version).
 * @throws ToolError unknown_dimension / invalid_value / value_not_held
 */
export function resolveFilters(source: Source, filters: FilterInput | undefined, options: { applyDefaults?: boolean; grouped?: readonly string[] } = {}): ResolvedFilters {
  const given = filters ?? {};
  const conditions: Condition[] = [];
  const applied: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!source.dimensions.has(name) && source.implied[name] !== undefined) {
      applied[name] = impliedValue(source, name, value);
      continue;
    }
    const dimension = findDimension(source, name);
    const condition = toCondition(dimension, value);
    conditions.push(condition);
    applied[name] = describeCondition(condition);
  }
  const defaultsApplied: Record<string, unknown> = {};
  if (options.applyDefaults !== false) {
    for (const [name, value] of Object.entries(source.defaultFilters)) {
      // A breakdown by the defaulted dimension ("by version") wants every value, not the default's one.
      if (name in given || options.grouped?.includes(name)) continue;
      const condition = toCondition(findDimension(source, name), value);
      conditions.push(condition);
      applied[name] = defaultsApplied[name] = describeCondition(condition);
    }
  }
  return { conditions, applied, defaultsApplied };
}

/**
 * The implied value when `value` names it (any case, alone or as every item of a list).
 * @throws ToolError value_not_held for any other value: "fi_reporting holds version ACTUAL only, not BUDGET."
 */
function impliedValue(source: Source, name: string, value: FilterInput[string]): string {
  const implied = source.implied[name]!;
  const values = Array.isArray(value) ? value : [value];
  const other = values.find((v) => v === null || typeof v === 'object' || String(v).trim().toUpperCase() !== implied.toUpperCase());
  if (other === undefined) return implied;
  const words = name.replace(/_/g, ' ');
  const shown = other === null ? 'blank' : typeof other === 'object' ? JSON.stringify(other) : String(other).trim();
  throw new ToolError('value_not_held', `${source.name} holds ${words} ${implied} only, not ${shown}: it has no ${words} dimension, every row is ${implied}.`, {
    hint: `Leave ${name} out for ${source.name}, or ask a source that has a ${words} dimension.`,
    details: { source: source.name, dimension: name, value: other, choices: [implied], held_by: [] },
  });
}

function toCondition(dimension: Dimension, value: FilterInput[string] | FilterScalar | FilterScalar[]): Condition {
  if (Array.isArray(value)) {
    return { dimension, kind: 'in', values: [...new Set(value.map((v) => normaliseValue(dimension, v)))] };
  }
  if (value !== null && typeof value === 'object') {
    const from = value.from === undefined ? undefined : normaliseBound(dimension, value.from, 'from');
    const to = value.to === undefined ? undefined : normaliseBound(dimension, value.to, 'to');
    if (from !== undefined && to !== undefined && from > to) {
      throw new ToolError('invalid_value', `Range on '${dimension.name}' is empty: from '${from}' is after to '${to}'.`, {
        hint: 'Swap from and to.',
        details: { dimension: dimension.name },
      });
    }
    return { dimension, kind: 'range', from, to };
  }
  if (dimension.type === 'period' && value !== null) {
    const span = parsePeriodSpan(String(value));
    if (span) return { dimension, kind: 'range', from: span.from, to: span.to };
  }
  return { dimension, kind: 'in', values: [normaliseValue(dimension, value)] };
}

function normaliseValue(dimension: Dimension, value: FilterScalar | null): string | null {
  if (value === null) return null;
  const text = String(value).trim();
  if (dimension.type !== 'period') return text;
  const period = parsePeriod(text, dimension.calendar);
  if (!period) throw invalidPeriod(dimension, text);
  return period;
}

function normaliseBound(dimension: Dimension, value: FilterScalar, bound: 'from' | 'to'): string {
  const text = String(value).trim();
  if (dimension.type !== 'period') return text;
  const period = parsePeriod(text, dimension.calendar);
  if (period) return period;
  // "from": "2024" means the start of 2024, "to": "Q3 2024" the end of Q3.
  const span = parsePeriodSpan(text);
  if (span) return bound === 'from' ? span.from : span.to;
  throw invalidPeriod(dimension, text);
}

function invalidPeriod(dimension: Dimension, text: string): ToolError {
  const calendar = dimension.calendar ?? FISCAL_CALENDAR;
  // Said in the data's own notation: "periods look like 202503" where the data holds YYYYMM.
  const spelling = calendar.format === 'YYYYPPP' || calendar.format === 'year_period'
    ? `Periods are fiscal YYYYPPP, e.g. '2024012' for period 12 of 2024 (${describePeriod('2024012', calendar.fiscalYearStart)}); also accepted: 'December 2024', '2024-12', 'Q4 2024', '2024'`
    : `Periods look like '${storedSpelling('2024012', calendar)}' here (${describePeriod('2024012', calendar.fiscalYearStart)}, fiscal period 2024012); also accepted: '${describePeriod('2024012', calendar.fiscalYearStart)}', 'P12 2024', 'Q4 2024', 'FY2024'`;
  return new ToolError('invalid_value', `'${text}' is not a fiscal period for dimension '${dimension.name}'.`, {
    hint: `${spelling}.${dimension.examples.length ? ` Examples: ${dimension.examples.join(', ')}.` : ''}`,
    details: { dimension: dimension.name, value: text },
  });
}

function describeCondition(condition: Condition): unknown {
  if (condition.kind === 'range') return { from: condition.from, to: condition.to };
  return condition.values.length === 1 ? condition.values[0] : condition.values;
}

/**
 * Conditions on logical dimensions as the data layer's WHERE conditions on their columns.
 *
 * @example
 * toWhere(resolveFilters(source, { company: '1000' }).conditions) // [{ column: 'compcode', kind: 'in', values: ['1000'] }]
 */
export function toWhere(conditions: readonly Condition[]): Filter[] {
  return conditions.map((c) =>
    c.kind === 'in' ? { column: c.dimension.column, kind: 'in', values: c.values } : { column: c.dimension.column, kind: 'range', from: c.from, to: c.to },
  );
}

/**
 * The note a tool adds when a source's default filters were applied, in words a reader (and a
 * model) takes in at once, and no longer than the JSON it replaces (it is in every model call
 * that carries the result); `hint` adds how to read other values.
 *
 * @example
 * defaultFiltersNote({ version: 'ACTUAL' }, 'consolidation_mart')
 * // 'consolidation_mart read with default version ACTUAL; filter on version to override.'
 * defaultFiltersNote({ version: 'ACTUAL' }, 'Side b (bpc_reporting)', false) // 'Side b (bpc_reporting) read with default version ACTUAL.'
 */
export function defaultFiltersNote(applied: Record<string, unknown>, source = 'The source', hint = true): string | undefined {
  const names = Object.keys(applied);
  if (names.length === 0) return undefined;
  const valueText = (value: unknown): string => {
    if (Array.isArray(value)) return value.map(String).join(', ');
    if (value && typeof value === 'object' && 'from' in value && 'to' in value) return `${String(value.from)} to ${String(value.to)}`;
    return value === null ? '(blank)' : String(value);
  };
  const filters = names.map((name) => `${name.replace(/_/g, ' ')} ${valueText(applied[name])}`).join(', ');
  return `${source} read with default ${filters}${hint ? `; filter on ${names.map((name) => name.replace(/_/g, ' ')).join(' or ')} to override` : ''}.`;
}
