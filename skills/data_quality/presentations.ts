/**
 * How the data_quality tools' results read in one line (`summarize`: their finding) and in the
 * web chat (`present`: a table of what each check found, its finding as a note).
 */
import type { ColumnSpec, PresentationSpec, ViewSpec } from '../../src/skills/api.ts';
import { humanize, plural } from '../../src/skills/api.ts';

type Row = Record<string, unknown>;

/**
 * "find_duplicates on fi_reporting: 3 document lines are loaded twice …".
 * @example
 * findingSummary('find_blank_values')({ source: 'fi_reporting', finding: 'No blank values.' }) // 'find_blank_values on fi_reporting: No blank values.'
 */
export function findingSummary(tool: string) {
  return (result: { source: string; finding: string }): string => `${tool} on ${result.source}: ${result.finding}`;
}

/** Columns of rows as they come: numbers are measures (or percentages), anything else a dimension. */
function columnsOf(rows: readonly Row[], skip: readonly string[] = []): ColumnSpec[] {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((key) => !skip.includes(key)).slice(0, 20);
  return keys.map((key) => {
    const numeric = rows.every((row) => row[key] === null || row[key] === undefined || typeof row[key] === 'number');
    return { key, role: numeric ? (key.endsWith('_percent') ? 'percent' : 'measure') : 'dimension' };
  });
}

/** One table of `rows` (at `rowsAt` in the result), or none when there are no rows. */
function table(rows: readonly Row[], rowsAt: string[], title: string, csvName: string[], notes: string[], skip: readonly string[] = []): ViewSpec[] {
  if (!rows.length) return [];
  return [{ title, subtitle: plural(rows.length, 'row'), rowsAt, columns: columnsOf(rows, skip), notes, csvName }];
}

/**
 * The duplicated records, their totals per currency and the finding.
 * @example
 * presentDuplicates(result).views.map((view) => view.title) // ['fi_reporting: duplicated records', 'fi_reporting: duplicates by currency']
 */
export function presentDuplicates(result: { source: string; finding: string; groups: Row[]; totals: Row[] }): PresentationSpec {
  return {
    caption: `Looked for duplicated records in ${result.source}`,
    views: [
      ...table(result.groups, ['groups'], `${result.source}: duplicated records`, ['duplicates', result.source], [result.finding], ['differs_in']),
      ...table(result.totals, ['totals'], `${result.source}: duplicates by currency`, ['duplicate-totals', result.source], []),
    ],
  };
}

/**
 * Blank values per dimension, and the finding.
 * @example
 * presentBlanks(result).views[0]?.title // 'fi_reporting: blank values'
 */
export function presentBlanks(result: { source: string; finding: string; dimensions: Row[] }): PresentationSpec {
  const columns: ColumnSpec[] = [
    { key: 'dimension', role: 'dimension' },
    ...['blank_rows', 'null_rows', 'empty_rows', 'placeholder_rows'].map((key): ColumnSpec => ({ key, label: humanize(key), role: 'measure' })),
    { key: 'blank_allowed', role: 'dimension' },
  ];
  const views: ViewSpec[] = result.dimensions.length
    ? [{ title: `${result.source}: blank values`, subtitle: plural(result.dimensions.length, 'dimension'), rowsAt: ['dimensions'], columns, notes: [result.finding], csvName: ['blank-values', result.source] }]
    : [];
  return { caption: `Looked for blank values in ${result.source}`, views };
}

/**
 * The periods whose totals deviate, each with the rule that flagged it (`flag_reason`), and the finding.
 * @example
 * presentOutliers(result).views[0]?.title // 'fi_reporting: outlier periods'
 */
export function presentOutliers(result: { source: string; finding: string; outliers: Row[] }): PresentationSpec {
  return { caption: `Looked for outlier periods in ${result.source}`, views: table(result.outliers, ['outliers'], `${result.source}: outlier periods`, ['outliers', result.source], [result.finding], ['expected_range', 'flagged_by']) };
}
