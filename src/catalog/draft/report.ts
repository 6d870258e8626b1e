/**
 * What `catalog:init` decided, for a person to read on stderr: per source every dimension and
 * measure with its role, period format, currency and value names, how sure the drafter is and
 * why; the plan/actual pairs; the master-data tables turned into value names; and what needs a
 * person before the service can use the draft. Plain text, built from the drafts alone.
 */
import type { Confidence } from './columnRole.ts';
import type { SourceDraft } from './guess.ts';
import type { FiscalYearGuess } from './fiscalYear.ts';
import type { Pairing } from './pairing.ts';

export interface ReportInput {
  sources: readonly SourceDraft[];
  pairings: readonly Pairing[];
  /** Master tables used for value names: the table and what it named. */
  masters: readonly { table: string; named: { source: string; dimension: string; names: number; words: Record<string, number> }[] }[];
  /** Lines already known to need a person (the period formats the service does not read yet). */
  needs: string[];
  /** The fiscal year's first month, when the data declares it. */
  fiscalYear?: FiscalYearGuess;
  /** Subjects declared not held, with the evidence. */
  notHeld?: readonly { terms: string[]; basis: string }[];
}

const LEGEND = 'sure: the name (ERP dictionary) and the data agree; likely: read from the data alone; guess: look at it';
const pad = (text: string, width: number) => (text.length >= width ? `${text} ` : text.padEnd(width));

/**
 * The report as lines.
 * @example
 * draftReport({ sources, pairings, masters, needs: [] }).join('\n');
 */
export function draftReport(input: ReportInput): string[] {
  const lines = [`What the draft decided (${LEGEND}):`];
  const tally: Record<Confidence, number> = { sure: 0, likely: 0, guess: 0 };
  for (const source of input.sources) {
    const implied = Object.entries(source.implied).map(([k, v]) => `${k} ${v}`).join(', ');
    lines.push('', `${source.name} (table ${source.table}${source.connection ? `, connection ${source.connection}` : ''}${implied ? `, implied ${implied}` : ''}${source.aliases.length ? `, also called ${source.aliases.join(', ')}` : ''})`);
    for (const d of source.dimensions) {
      tally[d.confidence] += 1;
      const role = d.type === 'period' ? `period ${d.format}${d.yearColumn ? ` (year in ${d.yearColumn})` : ''}` : d.currency ? 'currency key' : d.cardinality === 'high' ? 'dimension (near-unique)' : 'dimension';
      const named = Object.keys(d.values).length ? `; ${Object.keys(d.values).length} value names` : '';
      lines.push(`  ${pad(d.name, 18)}${pad(d.column, 14)}${pad(role, 34)}${pad(d.confidence, 7)}${d.basis}${named}${d.synonyms.length ? `; also "${d.synonyms.slice(0, 3).join('", "')}"` : ''}`);
    }
    for (const m of source.measures) {
      if (m.aggregation === 'count') continue;
      tally[m.confidence] += 1;
      const role = `measure ${m.aggregation}${m.currency_dimension ? ` in ${m.currency_dimension}` : ''}${source.defaultMeasure === m.name ? ', default' : ''}`;
      lines.push(`  ${pad(m.name, 18)}${pad(m.column ?? '', 14)}${pad(role, 34)}${pad(m.confidence, 7)}${m.basis}`);
    }
  }
  if (input.pairings.length > 0) {
    lines.push('', 'Plan beside actuals (a source reads one table, so each pair is two sources with implied versions):');
    for (const p of input.pairings) lines.push(`  ${p.plan} is the ${p.version} of ${p.actual}: actual vs budget = ${p.actual} compared with ${p.plan} on ${p.measure}, aligned on ${p.shared.join(', ')}  [${p.confidence}: ${p.basis}]`);
  }
  if (input.fiscalYear) lines.push('', `Fiscal year: starts in month ${input.fiscalYear.month} (fiscal_year_start: ${input.fiscalYear.month}): ${input.fiscalYear.basis}  [likely]`);
  for (const subject of input.notHeld ?? []) lines.push('', `Not held: ${subject.terms.slice(0, 5).join(', ')}…: ${subject.basis}, so such questions are declined  [likely]`);
  if (input.masters.length > 0) {
    lines.push('', 'Master data (not drafted as sources: their descriptions became value names):');
    for (const master of input.masters) {
      const named = master.named.map((n) => `${n.source}.${n.dimension}`).join(', ');
      const first = master.named[0];
      const words = first ? Object.entries(first.words).map(([word, n]) => `${n} called ${word}`).join(', ') : '';
      lines.push(`  ${master.table} → ${named}: ${first?.names ?? 0} names${words ? ` (${words}, from the descriptions)` : ''}  [likely]`);
    }
  }
  const checks = input.sources.reduce((n, s) => n + s.checks.length + s.dimensions.reduce((k, d) => k + d.checks.length + (d.cardinalityNote?.startsWith('CHECK') ? 1 : 0), 0) + s.measures.reduce((k, m) => k + m.checks.length, 0), 0);
  lines.push(
    '',
    `How sure: ${tally.sure} sure, ${tally.likely} likely, ${tally.guess} guesses.`,
    'Needs a person:',
    ...input.needs.map((need) => `  - ${need}`),
    `  - ${checks} CHECK notes in the file: confirm or correct each.`,
    '  - Descriptions are placeholders (the model reads them): say what a row is and what each column means.',
    `  - What the data cannot tell: ${input.fiscalYear ? '' : 'a fiscal year that does not start in January (fiscal_year_start), '}group_currency, ${input.notHeld?.length ? 'more ' : ''}not_held subjects, defaults.filters.`,
  );
  return lines;
}
