/**
 * The periods a run covers, from its period rule and the day it runs (in the check's time
 * zone): the month just closed, each month of the year so far, or one fixed month.
 */
import type { PeriodRule } from './checkDefinition.ts';

/**
 * Months as YYYY-MM (compare_sources reads them in any catalog's spelling).
 * @example
 * periodsFor({ kind: 'previous_month' }, new Date('2025-01-06T05:00:00Z'), 'Europe/Berlin') // ['2024-12']
 */
export function periodsFor(rule: PeriodRule, runAt: Date, timeZone: string): string[] {
  if (rule.kind === 'fixed') return [rule.period];
  const { year, month } = localMonth(runAt, timeZone);
  const closed = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
  if (rule.kind === 'previous_month') return [monthText(closed.year, closed.month)];
  return Array.from({ length: closed.month }, (_, index) => monthText(closed.year, index + 1));
}

function localMonth(at: Date, timeZone: string): { year: number; month: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric' }).formatToParts(at);
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: value('year'), month: value('month') };
}

const monthText = (year: number, month: number) => `${year}-${String(month).padStart(2, '0')}`;
