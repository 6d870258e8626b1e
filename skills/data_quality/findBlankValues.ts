/**
 * find_blank_values: dimension values that are missing (NULL), empty, or a placeholder such
 * as '#' (SAP BW's "not assigned"), per dimension, with the amounts they carry, where they
 * sit and example records to correct.
 */
import { z } from 'zod';
import { checkFilterValuesExist, defineTool, filtersArgument, formatAmount, nameArgument, type Dimension, type Source } from '../../src/skills/api.ts';
import { scanBlankValues, type BlankDimension } from './blankScan.ts';
import { findingSummary, presentBlanks } from './presentations.ts';
import { blanksOutput } from './schemas.ts';
import { BLANK_CONTEXTS, BLANK_EXAMPLES, PLACEHOLDER_VALUES } from './limits.ts';
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
} from './scope.ts';

const input = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  dimensions: z.array(nameArgument()).min(1).max(30).optional().describe('default: every dimension'),
  filters: filtersArgument(),
});

export const findBlankValues = defineTool({
  name: 'find_blank_values',
  description: `Rows whose dimension values are blank (NULL, empty or ${PLACEHOLDER_VALUES.map((v) => `'${v}'`).join(', ')}): per dimension, how many, their amount and where. Use it for incomplete master data, e.g. lines without a profit center.`,
  input,
  output: blanksOutput,
  handler: async (args, context) => {
    const scope = resolveScope(context.catalog, args.source, args.filters);
    const { source, notes } = scope;
    const dimensions = args.dimensions ? resolveDimensions(source, args.dimensions, 'dimensions') : [...source.dimensions.values()];
    const measure = amountMeasure(source, undefined);
    const currency = currencyDimension(source, measure);
    const allowed = new Set(dimensions.filter(blankAllowed).map((d) => d.name));
    const contextDims = contextDimensions(context.catalog, source);
    const outcome = await scanBlankValues(
      context.data,
      {
        table: source.table,
        connection: source.connection,
        dimensions: dimensions.map((d) => ({ ...named(d), details: !allowed.has(d.name) || args.dimensions !== undefined })),
        currency: currency ? named(currency) : undefined,
        amountColumn: measure?.column,
        where: scope.where,
        placeholders: PLACEHOLDER_VALUES,
        exampleColumns: exampleColumns(source, contextDims, currency).map(named),
        examples: BLANK_EXAMPLES,
        contextColumns: contextDims.map(named),
        contexts: BLANK_CONTEXTS,
      },
      context.signal,
    );
    const rowsChecked = outcome.checked.reduce((sum, c) => sum + c.rows, 0);
    if (rowsChecked === 0) {
      await checkFilterValuesExist(source, scope.filters.conditions, context);
      notes.push('No rows match this combination of filters (each filter value exists on its own).');
    }
    const found = outcome.dimensions.filter((d) => blankRows(d) > 0);
    const rows = found.map((d) => ({
      dimension: d.dimension,
      blank_rows: blankRows(d),
      null_rows: d.nullRows,
      empty_rows: d.emptyRows,
      placeholder_rows: d.placeholderRows,
      blank_allowed: allowed.has(d.dimension),
      amounts: d.amounts.map((a) => ({ ...(currency ? { currency: a.currency } : {}), rows: a.rows, amount: a.amount })),
      where: d.where,
      where_groups: d.whereGroups,
      examples: d.examples,
    }));
    return {
      source: source.name,
      filters: scope.filters.applied,
      rows_checked: rowsChecked,
      dimensions_checked: dimensions.map((d) => d.name),
      dimensions: rows,
      clean_dimensions: outcome.dimensions.filter((d) => blankRows(d) === 0).map((d) => d.dimension),
      finding: finding(source, scope.filters.applied, rowsChecked, found, allowed, documentKey(source) ? 'line' : 'row', currency?.name),
      ...(notes.length ? { notes } : {}),
      sql: outcome.sql,
    };
  },
  summarize: findingSummary('find_blank_values'),
  present: presentBlanks,
});

const blankRows = (d: BlankDimension) => d.nullRows + d.emptyRows + d.placeholderRows;

/** The catalog says the dimension may be blank ("NULL otherwise", "blank on …", "empty when …"). */
function blankAllowed(dimension: Dimension): boolean {
  return /\bnull\b|\bblank\b|\bempty\b|\bnot always\b/i.test(dimension.description);
}

/** Columns that identify an example record: document and line when the source has them, plus company and period. */
function exampleColumns(source: Source, contextDims: Dimension[], currency: Dimension | undefined): Dimension[] {
  const technical = technicalDimensions(source);
  const identifying = documentKey(source) ?? [...source.dimensions.values()].filter((d) => !contextDims.includes(d) && d !== currency && !technical.includes(d)).slice(0, 6);
  return [...identifying, ...contextDims.filter((d) => !identifying.includes(d))];
}

function kindText(d: BlankDimension): string {
  const kinds = [d.nullRows ? `${d.nullRows} NULL` : '', d.emptyRows ? `${d.emptyRows} empty` : '', d.placeholderRows ? `${d.placeholderRows} placeholder` : ''].filter(Boolean);
  if (kinds.length === 1) return d.nullRows ? 'NULL' : d.emptyRows ? 'empty string' : 'placeholder value';
  return kinds.join(', ');
}

function whereText(d: BlankDimension): string {
  const first = d.where[0];
  if (!first) return '';
  const context = Object.fromEntries(Object.entries(first).filter(([name]) => name !== 'rows' && name !== 'amount' && name !== 'currency'));
  if (Object.keys(context).length === 0) return '';
  if (d.whereGroups === 1) return `, all in ${describeValues(context)}`;
  return `, in ${d.whereGroups} places, most in ${describeValues(context)} (${first.rows})`;
}

function finding(source: Source, filters: Record<string, unknown>, checked: number, found: BlankDimension[], allowed: Set<string>, noun: string, currencyName: string | undefined): string {
  const scope = describeValues(filters);
  const head = `${source.name}${scope ? ` for ${scope}` : ''}`;
  if (checked === 0) return `No rows in ${head}.`;
  const defects = found.filter((d) => !allowed.has(d.dimension));
  const expected = found.filter((d) => allowed.has(d.dimension));
  const parts: string[] = [];
  if (defects.length === 0) {
    parts.push(`No blank values in ${head} (${plural(checked, noun)} checked)${expected.length ? ' apart from dimensions that may be blank' : ''}.`);
  } else {
    const items = defects.map((d) => {
      const amounts = d.amounts.map((a) => (a.amount === null ? '' : formatAmount(a.amount, currencyName ? a.currency : null))).filter(Boolean);
      return `${plural(blankRows(d), noun)} with a blank ${d.dimension} (${kindText(d)}${amounts.length ? `; ${amounts.join(', ')}` : ''}${whereText(d)})`;
    });
    parts.push(`In ${head}, ${listText(items)}.`);
  }
  if (expected.length) {
    parts.push(`Blank by design (the catalog allows it): ${listText(expected.map((d) => `${d.dimension} on ${plural(blankRows(d), noun)}`))}.`);
  }
  if (defects.length && expected.length === 0) parts.push('Every other dimension checked is filled.');
  return parts.join(' ');
}
