/**
 * The one-paragraph finding of find_duplicates (findDuplicates.ts), written from its pattern rows
 * (duplicateRows.ts) and the scan's totals: the sentence a reader and the model see first.
 */
import { formatAmount, roundAmount, type Dimension, type DuplicateOutcome, type Source } from '../../src/skills/api.ts';
import type { DuplicateShape, PatternRow } from './duplicateRows.ts';
import { describeValues, listText, plural, times } from './scope.ts';

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

/**
 * What find_duplicates found, in a few sentences: the largest pattern (what, where, how often,
 * through which requests, the amount counted twice), a request holding nothing but copies, the
 * scope's total without them, copies that differ, and the totals of every pattern.
 * @example
 * finding(source, { company: '1000' }, outcome, patterns, shape);
 * // 'No duplicated records in fi_reporting for company 1000: every document + document_line occurs once.'
 */
export function finding(source: Source, filters: Record<string, unknown>, outcome: DuplicateOutcome, patterns: PatternRow[], shape: DuplicateShape): string {
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
