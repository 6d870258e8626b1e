/**
 * A helper for skills: when a query comes back empty (or a side of a comparison does), finds out
 * why. A filter value the source does not hold is an error the model can act on, never a side of
 * 0.00: `value_not_held` when another source holds it (the values this source holds, and the
 * source to ask instead), `unknown_value` when no source does (a typo: the valid values and the
 * closest one). A combination of values each held on its own is an honest empty answer.
 *
 * Everything is asked of the caller's own catalog and data: for a scoped key a hidden value (or a
 * hidden source) is simply not held, so "not held" reads the same whether hidden or absent.
 */
import type { Source } from '../catalog/catalog.ts';
import type { Condition } from '../catalog/filters.ts';
import { closestMatch, closestName } from '../shared/closestMatch.ts';
import { distinctValues, valueExists } from '../data/lookups.ts';
import { ToolError } from '../errors/index.ts';
import type { ToolContext } from './sdk/tools.ts';

/** Valid values listed when a filter value does not exist. */
const VALUE_CHOICES_LISTED = 50;
/** Lists up to this long are checked value by value (LIMIT 1 each); longer ones in one grouped scan. */
const VALUES_ASKED_ONE_BY_ONE = 8;
/** Held values written out in a message (all of them stay in `choices`). */
const VALUES_IN_MESSAGE = 12;

/** Fields added to the error's details, e.g. `{ side: 'b' }` for a side of a comparison. */
export interface CheckOptions {
  details?: Record<string, unknown>;
}

/**
 * Throws for the first filter value the source holds in no row.
 * @throws ToolError value_not_held (another source holds it) or unknown_value (none does).
 * @example
 * if (result.rows.length === 0) await checkFilterValuesExist(source, filters.conditions, context);
 */
export async function checkFilterValuesExist(source: Source, conditions: readonly Condition[], context: ToolContext, options: CheckOptions = {}): Promise<void> {
  for (const condition of conditions) {
    if (condition.kind !== 'in') continue;
    for (const value of condition.values) {
      if (await valueExists(context.data, source, condition.dimension.column, value, context.signal)) continue;
      throw await notHeldError(source, condition.dimension.name, value, context, options);
    }
  }
}

/** A listed filter value no row of the source holds, as a result reports it (`values_not_held`). */
export interface ValueNotHeld {
  /** value_not_held: another source holds it; unknown_value: none does. */
  code: 'value_not_held' | 'unknown_value';
  dimension: string;
  value: string | null;
  /** The sources that hold it, most alike first. */
  held_by: string[];
  /** The statement, e.g. "bpc_reporting holds versions ACTUAL and BUDGET, not FORECAST; …". */
  statement: string;
}

/**
 * For filters listing several values, when the query did return rows: the listed values no row
 * holds, which would otherwise vanish silently from a total. Not an error (the other values'
 * rows are an answer, and a list "1000 or 5000" has always been one), but a flag and a note the
 * result carries. One grouped lookup per list.
 * @example
 * await listedValuesNotHeld(bpc, resolveFilters(bpc, { version: ['ACTUAL', 'FORECAST'] }).conditions, context)
 * // [{ code: 'value_not_held', dimension: 'version', value: 'FORECAST', held_by: ['consolidation_mart'], statement: 'bpc_reporting holds …' }]
 */
export async function listedValuesNotHeld(source: Source, conditions: readonly Condition[], context: ToolContext): Promise<ValueNotHeld[]> {
  const found: ValueNotHeld[] = [];
  for (const condition of conditions) {
    if (condition.kind !== 'in' || condition.values.length < 2) continue;
    const { column, name } = condition.dimension;
    for (const value of await valuesWithoutRows(source, column, condition.values, context)) {
      const error = await notHeldError(source, name, value, context, {});
      const heldBy = Array.isArray(error.details.held_by) ? (error.details.held_by as string[]) : [];
      found.push({ code: error.code as ValueNotHeld['code'], dimension: name, value, held_by: heldBy, statement: error.message });
    }
  }
  return found;
}

/**
 * The values of a list no row holds. A short list asks each value with LIMIT 1, which stops at the
 * first row a held value has (the usual case costs next to nothing); a long one is one grouped scan.
 */
async function valuesWithoutRows(source: Source, column: string, values: readonly (string | null)[], context: ToolContext): Promise<(string | null)[]> {
  if (values.length <= VALUES_ASKED_ONE_BY_ONE) {
    // One after the other: a check should not fill the query line other callers share.
    const missing: (string | null)[] = [];
    for (const value of values) if (!(await valueExists(context.data, source, column, value, context.signal))) missing.push(value);
    return missing;
  }
  const { rows } = await context.data.run(
    { kind: 'select', table: source.table, connection: source.connection, columns: [{ name: 'value', column }], aggregates: [{ name: 'rows', function: 'count' }], where: [{ column, kind: 'in', values: [...values] }] },
    context.signal,
  );
  const held = new Set(rows.map((row) => (row.value === null || row.value === '' ? null : String(row.value))));
  return values.filter((value) => !held.has(value === '' ? null : value));
}

/**
 * The sources of the caller's catalog other than `source` that hold `value` for `dimension`
 * (a row has it, or the source implies it), most alike `source` first (most shared dimensions).
 * @example
 * await sourcesHolding(context, bpc, 'version', 'FORECAST') // ['consolidation_mart']
 */
export async function sourcesHolding(context: ToolContext, source: Source, dimension: string, value: string): Promise<string[]> {
  const holding: { name: string; shared: number }[] = [];
  for (const other of context.catalog.sources.values()) {
    if (other.name === source.name) continue;
    const stored = other.dimensions.get(dimension);
    const holds = stored ? await valueExists(context.data, other, stored.column, value, context.signal).catch(() => false) : other.implied[dimension] === value;
    if (holds) holding.push({ name: other.name, shared: [...other.dimensions.keys()].filter((name) => source.dimensions.has(name)).length });
  }
  return holding.sort((x, y) => y.shared - x.shared).map((entry) => entry.name);
}

async function notHeldError(source: Source, dimension: string, value: string | null, context: ToolContext, options: CheckOptions): Promise<ToolError> {
  const column = source.dimensions.get(dimension)!.column;
  const known = (await distinctValues(context.data, source, column, VALUE_CHOICES_LISTED + 1, context.signal)).filter((v): v is string => v !== null);
  const listed = known.slice(0, VALUE_CHOICES_LISTED);
  // A business name from the catalog ("Contoso UK" for company 3000, "forecast" for FORECAST) points to its code.
  const named = value === null ? undefined : codeNamed(source, dimension, value);
  const code = named ?? value;
  // A name of a code this source holds is a naming slip, not a value held elsewhere.
  const heldHere = code !== null && (listed.includes(code) || (code !== value && (await valueExists(context.data, source, column, code, context.signal))));
  const heldBy = code === null || heldHere || known.length === 0 ? [] : await sourcesHolding(context, source, dimension, code);
  const where = options.details ?? {};
  if (code !== null && heldBy.length > 0) {
    const words = dimension.replace(/_/g, ' ');
    const holders = listOf(heldBy);
    return new ToolError('value_not_held', `${source.name} holds ${pluralOf(words)} ${valuesText(known)}, not ${code}${code.toLowerCase() !== value!.toLowerCase() ? ` (I read '${value}' as ${code})` : ''}; ${holders} ${heldBy.length === 1 ? 'holds' : 'hold'} ${words} ${code}.`, {
      hint: `For ${words} '${code}' use ${holders}${heldBy.length > 1 ? ` (closest: ${heldBy[0]})` : ''}; in ${source.name} use ${choiceText(known, listed)}.`,
      details: { ...where, source: source.name, dimension, value, choices: listed, held_by: heldBy, closest_source: heldBy[0] },
    });
  }
  // The value itself is no suggestion (a code the catalog names but the source does not hold).
  const suggested = named ?? (value === null ? undefined : closestMatch(value, listed));
  const closest = suggested === value ? undefined : suggested;
  const shown = value === null ? 'blank' : `'${value}'`;
  const pointer = closest !== undefined && closest === named ? `'${value}' is the catalog's name of ${dimension} '${named}': filter by the code. ` : closest ? `Did you mean '${closest}'? ` : '';
  return new ToolError('unknown_value', `No row of '${source.name}' has ${dimension} = ${shown}.`, {
    hint: `${pointer}Values of ${dimension}: ${listed.map((v) => `'${v}'`).join(', ')}${known.length > listed.length ? ', …' : ''}.`,
    details: { ...where, source: source.name, dimension, value, choices: listed, closest: closest ?? null },
  });
}

/** The code whose catalog names (value labels) match `text`, exactly or misspelt word for word. */
function codeNamed(source: Source, dimension: string, text: string): string | undefined {
  const names = source.dimensions.get(dimension)?.values;
  if (!names?.size || text.length > 200 || /^\d+$/.test(text)) return undefined;
  const byName = new Map([...names].flatMap(([code, labels]) => [code, ...labels].map((label) => [label.toLowerCase(), code] as const)));
  const exact = byName.get(text.trim().toLowerCase());
  if (exact) return exact;
  const closest = closestName(text, [...byName.keys()]);
  return closest === undefined ? undefined : byName.get(closest);
}

/** "ACTUAL and BUDGET"; a long list is cut with its count ("2024001, 2024002, … (1,174 in all)"). */
function valuesText(values: readonly string[]): string {
  if (values.length <= VALUES_IN_MESSAGE) return listOf(values);
  const more = values.length > VALUE_CHOICES_LISTED ? `more than ${VALUE_CHOICES_LISTED}` : String(values.length);
  return `${values.slice(0, VALUES_IN_MESSAGE).join(', ')}, … (${more} in all)`;
}

/** "'ACTUAL' or 'BUDGET'", "one of 'a', 'b', …": the values to use instead. */
function choiceText(known: readonly string[], listed: readonly string[]): string {
  const quoted = listed.map((v) => `'${v}'`);
  if (known.length <= 3) return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `one of ${quoted.join(', ')}${known.length > listed.length ? ', …' : ''}`;
}

function listOf(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "versions", "companies", "group accounts": the plural of a dimension's words for a sentence. */
function pluralOf(words: string): string {
  if (/[^aeiou]y$/.test(words)) return `${words.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(words)) return `${words}es`;
  return `${words}s`;
}
