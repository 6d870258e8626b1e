/**
 * find_duplicates: records that occur more than once in one source (the same key, e.g.
 * document and line, loaded several times), pinpointed by their keys, with the load requests
 * (or other ignored dimensions) the copies came in with and the amount counted twice.
 */
import { z } from 'zod';
import { nameArgument } from '../../src/shared/inputLimits.ts';
import { measureUnit, type Dimension, type Source } from '../../src/catalog/catalog.ts';
import { checkFilterValuesExist } from '../../src/skills/filterValues.ts';
import { defineTool, filtersArgument, roundAmount, ToolError, type Filter, type ToolContext } from '../../src/skills/api.ts';
import { scanDuplicates, type DuplicateGroup, type DuplicateOutcome, type DuplicatePattern } from './duplicateScan.ts';
import { findingSummary, presentDuplicates } from './presentations.ts';
import { duplicatesOutput } from './schemas.ts';
import { formatAmount } from '../../src/shared/format.ts';
import { DEFAULT_DUPLICATE_GROUPS, KEYS_PER_PATTERN, MAX_DUPLICATE_GROUPS, PATTERNS_SHOWN, PATTERNS_WITH_TOTALS, VALUES_PER_DIMENSION } from './limits.ts';
import {
  amountMeasure,
  contextDimensions,
  currencyDimension,
  describeValues,
  documentKey,
  listText,
  named,
  plural,
  resolveDimensions,
  resolveScope,
  technicalDimensions,
  times,
} from './scope.ts';

const input = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  key: z
    .array(nameArgument())
    .min(1)
    .max(12)
    .optional()
    .describe('dimensions identifying one record; default: document, document_line'),
  ignore: z
    .array(nameArgument())
    .max(12)
    .optional()
    .describe('dimensions copies may differ in, e.g. ["load_request"]'),
  measure: nameArgument().optional().describe("default: the source's amount"),
  filters: filtersArgument(),
  limit: z.number().int().positive().optional().describe(`groups listed (default ${DEFAULT_DUPLICATE_GROUPS}, at most ${MAX_DUPLICATE_GROUPS})`),
});

export const findDuplicates = defineTool({
  name: 'find_duplicates',
  description: 'Records that appear more than once in one source (e.g. lines loaded twice): the copies, the amount counted twice and where they sit. Use it when a total looks too high or doubled.',
  input,
  output: duplicatesOutput,
  handler: async (args, context) => {
    const scope = resolveScope(context.catalog, args.source, args.filters);
    const { source, notes } = scope;
    const measure = amountMeasure(source, args.measure);
    const currency = currencyDimension(source, measure);
    const { key, ignore } = resolveKey(source, args.key, args.ignore, currency);
    const contextDims = contextDimensions(context.catalog, source).filter((d) => !key.includes(d) && !ignore.includes(d));
    const describe = [...ignore, ...contextDims];
    const compare = [...source.dimensions.values()].filter((d) => !key.includes(d) && !describe.includes(d) && d !== currency);
    const requested = args.limit ?? DEFAULT_DUPLICATE_GROUPS;
    if (requested > MAX_DUPLICATE_GROUPS) notes.push(`limit ${requested} was lowered to the maximum of ${MAX_DUPLICATE_GROUPS} groups.`);
    const limit = Math.min(requested, MAX_DUPLICATE_GROUPS);
    // Copies are grouped per currency anyway (amounts of different currencies never add up).
    const groupCurrency = currency;

    const outcome = await scanDuplicates(
      context.data,
      {
        table: source.table,
        connection: source.connection,
        key: key.map(named),
        currency: groupCurrency ? named(groupCurrency) : undefined,
        amountColumn: measure?.column,
        describe: describe.map(named),
        compare: compare.map(named),
        where: scope.where,
        top: limit,
        keysPerPattern: KEYS_PER_PATTERN,
      },
      context.signal,
    );
    if (outcome.groups === 0) await checkFilterValuesExist(source, scope.filters.conditions, context);

    const shape: Shape = { key, ignore, contextDims, currency: groupCurrency, amountName: measure?.name };
    const patterns = outcome.patterns.slice(0, PATTERNS_SHOWN).map((pattern) => patternRow(pattern, shape));
    for (const [index, pattern] of outcome.patterns.slice(0, PATTERNS_WITH_TOTALS).entries()) {
      Object.assign(patterns[index]!, await scopeTotals(pattern, shape, source, scope.where, measure?.column, context));
    }
    if (outcome.patternCount > patterns.length) {
      notes.push('Only the largest places where duplicates sit are listed as patterns; the totals cover every duplicate.');
    }
    return {
      source: source.name,
      key: key.map((d) => d.name),
      ignore: ignore.map((d) => d.name),
      measure: measure ? { name: measure.name, unit: measureUnit(measure) } : null,
      filters: scope.filters.applied,
      duplicate_groups: outcome.groups,
      duplicate_records: outcome.records,
      extra_copies: outcome.extraCopies,
      totals: outcome.totals.map((t) => ({
        ...(groupCurrency ? { currency: t.currency } : {}),
        groups: t.groups,
        records: t.records,
        amount: measure ? t.amount : null,
        duplicated_amount: measure ? t.duplicatedAmount : null,
      })),
      patterns,
      groups: outcome.top.map((group) => groupRow(group, shape)),
      truncated: outcome.groups > outcome.top.length,
      finding: finding(source, scope.filters.applied, outcome, patterns, shape),
      ...(notes.length ? { notes } : {}),
      sql: outcome.sql,
    };
  },
  summarize: findingSummary('find_duplicates'),
  present: presentDuplicates,
});

interface Shape {
  key: Dimension[];
  ignore: Dimension[];
  contextDims: Dimension[];
  currency: Dimension | undefined;
  /** The summed measure, if the source has one. */
  amountName: string | undefined;
}

/**
 * The key and the ignored dimensions. The key defaults to document + line, else to every
 * dimension but the ignored ones (and the currency, which is grouped on anyway).
 */
function resolveKey(source: Source, keyNames: string[] | undefined, ignoreNames: string[] | undefined, currency: Dimension | undefined) {
  const givenKey = keyNames ? resolveDimensions(source, keyNames, 'key') : undefined;
  let ignore = ignoreNames ? resolveDimensions(source, ignoreNames, 'ignore') : technicalDimensions(source).filter((d) => !givenKey?.includes(d));
  if (givenKey) {
    const both = givenKey.filter((d) => ignore.includes(d));
    if (both.length) {
      throw new ToolError('invalid_value', `'${both[0]!.name}' cannot be both part of the key and ignored.`, {
        hint: 'A key dimension must be equal in every copy; an ignored one may differ. Remove it from one of the two lists.',
        details: { argument: 'ignore', dimension: both[0]!.name },
      });
    }
  }
  // The currency is grouped on anyway; as a key dimension it would be a second copy of that column.
  const key = (givenKey ?? documentKey(source) ?? [...source.dimensions.values()].filter((d) => !ignore.includes(d))).filter((d) => d !== currency);
  ignore = ignore.filter((d) => !key.includes(d));
  if (key.length === 0) {
    const choices = [...source.dimensions.keys()];
    throw new ToolError('invalid_value', `No dimension of '${source.name}' is left to identify a record once ${listText(ignore.map((d) => `'${d.name}'`))} are ignored.`, {
      hint: `Give the key explicitly, e.g. "key": ["${choices[0]}"]. Dimensions: ${choices.join(', ')}.`,
      details: { argument: 'key', choices },
    });
  }
  return { key, ignore };
}

/** Single values as they are, several as a list. */
const oneOrMany = (values: (string | null)[]) => (values.length === 1 ? values[0]! : values.slice(0, VALUES_PER_DIMENSION));

function groupRow(group: DuplicateGroup, shape: Shape) {
  return {
    ...group.key,
    ...Object.fromEntries(shape.contextDims.map((d) => [d.name, oneOrMany(group.values[d.name] ?? [])])),
    ...(shape.currency ? { [shape.currency.name]: group.currency } : {}),
    copies: group.copies,
    amount: group.amount,
    duplicated_amount: group.duplicatedAmount,
    ...Object.fromEntries(shape.ignore.map((d) => [d.name, (group.values[d.name] ?? []).slice(0, VALUES_PER_DIMENSION)])),
    differs_in: group.differsIn.map((name) => (name === '(amount)' ? (shape.amountName ?? name) : name)),
  };
}

type PatternRow = ReturnType<typeof patternRow> & {
  scope?: { records: number; amount: number; without_copies: number };
  breakdown?: { dimension: string; values: { value: string | null; records: number; amount: number; holds_only_copies: boolean }[] };
};

function patternRow(pattern: DuplicatePattern, shape: Shape) {
  const documentDimension = shape.key.find((d) => d.name === 'document');
  // Documents of the listed keys (all of them unless more_keys); document_count counts every one.
  const documents = documentDimension && shape.key[0] === documentDimension ? [...new Set(pattern.keys.map((k) => k[documentDimension.name] ?? null))] : undefined;
  return {
    ...Object.fromEntries(shape.contextDims.map((d) => [d.name, oneOrMany(pattern.values[d.name] ?? [])])),
    ...(shape.currency ? { [shape.currency.name]: pattern.currency } : {}),
    copies: pattern.copies,
    groups: pattern.groups,
    records: pattern.records,
    ...Object.fromEntries(shape.ignore.map((d) => [d.name, (pattern.values[d.name] ?? []).slice(0, VALUES_PER_DIMENSION)])),
    amount: pattern.amount,
    duplicated_amount: pattern.duplicatedAmount,
    ...(documents ? { documents, document_count: pattern.firstKeyValues } : {}),
    keys: pattern.keys,
    more_keys: pattern.groups > pattern.keys.length,
    differs_in: pattern.differsIn.map((name) => (name === '(amount)' ? (shape.amountName ?? name) : name)),
  };
}

/**
 * For a pattern pinned to one company and period (the context): the scope's total, what it
 * would be without the extra copies, and the first ignored dimension's values (e.g. load
 * requests) with their lines, marking a value that holds nothing but one copy of each record.
 */
async function scopeTotals(pattern: DuplicatePattern, shape: Shape, source: Source, where: Filter[], amountColumn: string | undefined, context: ToolContext) {
  if (!amountColumn) return {};
  const pinned = shape.contextDims.map((d) => [d, pattern.values[d.name] ?? []] as const);
  if (pinned.length === 0 || pinned.some(([, values]) => values.length !== 1)) return {};
  const split = shape.ignore[0];
  const conditions: Filter[] = [
    ...where,
    ...pinned.map(([d, values]): Filter => ({ column: d.column, kind: 'in', values: [values[0]!] })),
    ...(shape.currency ? [{ column: shape.currency.column, kind: 'in' as const, values: [pattern.currency] }] : []),
  ];
  const result = await context.data.run(
    {
      kind: 'select',
      table: source.table,
      connection: source.connection,
      columns: split ? [{ name: 'value', column: split.column }] : [],
      aggregates: [
        { name: 'records', function: 'count' },
        { name: 'amount', function: 'sum', column: amountColumn },
      ],
      where: conditions,
      limit: 50,
      countAll: true,
    },
    context.signal,
  );
  const rows = result.rows.map((row) => ({ value: split && row.value !== null && row.value !== undefined ? String(row.value) : null, records: Number(row.records), amount: roundAmount(Number(row.amount ?? 0)) }));
  const records = rows.reduce((sum, row) => sum + row.records, 0);
  const amount = roundAmount(rows.reduce((sum, row) => sum + row.amount, 0));
  const oneCopy = roundAmount(pattern.amount / pattern.copies);
  return {
    scope: { records, amount, without_copies: roundAmount(amount - pattern.duplicatedAmount) },
    ...(split && (result.total ?? 0) <= rows.length
      ? {
          breakdown: {
            dimension: split.name,
            values: rows.map((row) => ({ ...row, holds_only_copies: row.records === pattern.groups && Math.abs(row.amount - oneCopy) < 0.005 })),
          },
        }
      : {}),
  };
}

function recordNoun(key: Dimension[]): string {
  const names = key.map((d) => d.name);
  if (names.includes('document') && names.includes('document_line')) return 'document line';
  if (names.length === 1 && names[0] === 'document') return 'document';
  return 'record';
}

/** "a, b, c and 2 more"; `total` counts values beyond those given. */
function shortList(values: readonly string[], total = values.length, shown = 5): string {
  if (total <= shown && values.length >= total) return listText(values);
  const listed = values.slice(0, shown);
  return `${listed.join(', ')} and ${total - listed.length} more`;
}

/** One pattern in a sentence: what, where, how often, through which requests, and the amount counted twice. */
function patternSentence(pattern: PatternRow, shape: { noun: string; context: string[]; ignore: string[]; currency: string | undefined; hasAmount: boolean }): string {
  const where = describeValues(Object.fromEntries(shape.context.map((name) => [name, (pattern as Record<string, unknown>)[name]])));
  const documents = pattern.documents?.length ? ` (${pattern.document_count === 1 ? 'document' : 'documents'} ${shortList(pattern.documents.map(String), pattern.document_count)})` : '';
  const origins = shape.ignore
    .map((name) => {
      const values = ((pattern as Record<string, unknown>)[name] as (string | null)[] | undefined) ?? [];
      return values.length > 1 ? `${name.replace(/_/g, ' ')}s ${shortList(values.map((v) => v ?? '(blank)'))}` : '';
    })
    .filter(Boolean);
  const currency = shape.currency ? ((pattern as Record<string, unknown>)[shape.currency] as string | null) : null;
  const oneCopy = roundAmount(pattern.amount / pattern.copies);
  const extra = pattern.copies > 2 ? ` (${formatAmount(pattern.duplicated_amount, currency)} too much)` : '';
  const counted = shape.hasAmount ? `: ${formatAmount(oneCopy, currency)} counted ${times(pattern.copies)}${extra}` : '';
  return `${plural(pattern.groups, shape.noun)}${where ? ` of ${where}` : ''}${documents} appear ${times(pattern.copies)}${origins.length ? ` (${origins.join('; ')})` : ''}${counted}.`;
}

function finding(source: Source, filters: Record<string, unknown>, outcome: DuplicateOutcome, patterns: PatternRow[], shape: Shape): string {
  const noun = recordNoun(shape.key);
  const scope = describeValues(filters);
  const keyText = shape.key.map((d) => d.name).join(' + ');
  if (outcome.groups === 0) {
    return `No duplicated records in ${source.name}${scope ? ` for ${scope}` : ''}: every ${keyText} occurs once.`;
  }
  const sentenceShape = { noun, context: shape.contextDims.map((d) => d.name), ignore: shape.ignore.map((d) => d.name), currency: shape.currency?.name, hasAmount: shape.amountName !== undefined };
  const parts = [patternSentence(patterns[0]!, sentenceShape)];
  const first = patterns[0]!;
  const onlyCopies = first.breakdown?.values.filter((v) => v.holds_only_copies) ?? [];
  if (first.breakdown && onlyCopies.length === 1) {
    parts.push(`${first.breakdown.dimension.replace(/_/g, ' ')} ${onlyCopies[0]!.value ?? '(blank)'} holds nothing but these copies.`.replace(/^./, (c) => c.toUpperCase()));
  }
  if (first.scope && patterns.length === 1) {
    const currency = shape.currency ? ((first as Record<string, unknown>)[shape.currency.name] as string | null) : null;
    parts.push(`The total there is ${formatAmount(first.scope.amount, currency)}; without the extra copies ${formatAmount(first.scope.without_copies, currency)}.`);
  }
  const differing = first.differs_in.filter((name) => name !== shape.amountName);
  if (differing.length) {
    parts.push(`The copies differ in ${listText(differing)}: they may be distinct records rather than copies; add ${differing.length === 1 ? 'it' : 'them'} to the key to check.`);
  } else if (first.differs_in.length) {
    parts.push(`The copies carry different ${shape.amountName ?? 'amount'}s.`);
  }
  if (outcome.patternCount > 1) {
    const totals = outcome.totals.map((t) => formatAmount(t.duplicatedAmount, t.currency)).join(', ');
    parts.push(`In all ${plural(outcome.groups, noun)} ${outcome.groups === 1 ? 'occurs' : 'occur'} more than once, in ${outcome.patternsComplete ? '' : 'at least '}${plural(outcome.patternCount, 'place')}${shape.amountName ? `: ${totals} counted more than once` : ''}.`);
  }
  return parts.join(' ');
}
