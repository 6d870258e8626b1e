/**
 * find_duplicates: records that occur more than once in one source (the same key, e.g.
 * document and line, loaded several times), pinpointed by their keys, with the load requests
 * (or other ignored dimensions) the copies came in with and the amount counted twice.
 */
import { z } from 'zod';
import { checkFilterValuesExist, defineTool, filtersArgument, measureUnit, nameArgument, scanDuplicates, ToolError, type Dimension, type Source } from '../../src/skills/api.ts';
import { finding } from './duplicateFinding.ts';
import { groupRow, patternRow, scopeTotals, type DuplicateShape } from './duplicateRows.ts';
import { findingSummary, presentDuplicates } from './presentations.ts';
import { duplicatesOutput } from './schemas.ts';
import { DEFAULT_DUPLICATE_GROUPS, KEYS_PER_PATTERN, MAX_DUPLICATE_GROUPS, PATTERNS_SHOWN, PATTERNS_WITH_TOTALS } from './limits.ts';
import { amountMeasure, contextDimensions, currencyDimension, documentKey, listText, named, resolveDimensions, resolveScope, technicalDimensions } from './scope.ts';

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

    const shape: DuplicateShape = { key, ignore, contextDims, currency: groupCurrency, amountName: measure?.name };
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
