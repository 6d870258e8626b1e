/**
 * The one thing about periods the data can tell when it says so itself: SAP keeps each company
 * code's fiscal year variant in `t001.periv` (and many extracts copy the column). When every
 * company of the data has the same standard variant, the draft declares the month its fiscal
 * year starts in (`fiscal_year_start`); any other case is left to a person, as before.
 */
import type { TableProfile } from './introspect.ts';

/** SAP's standard fiscal year variants by the calendar month their year starts in. */
const VARIANT_START: Record<string, number> = { K0: 1, K1: 1, K2: 1, K3: 1, K4: 1, V3: 4, V6: 7, V9: 10 };
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A fiscal year start read from the data, and what it was read from. */
export interface FiscalYearGuess {
  month: number;
  basis: string;
}

/**
 * The fiscal year start the profiled tables declare through a fiscal year variant column.
 *
 * @example
 * fiscalYearOf([t001Profile]) // { month: 4, basis: "t001.periv is V3 for every company (SAP's April–March variant)" }
 */
export function fiscalYearOf(profiles: readonly TableProfile[]): FiscalYearGuess | undefined {
  for (const profile of profiles) {
    const column = profile.columns.find((c) => c.column.toLowerCase() === 'periv');
    if (!column || profile.sampled) continue;
    const variants = column.top.map((t) => String(t.value).trim().toUpperCase());
    if (variants.length !== 1 || column.distinct !== 1) continue;
    const month = VARIANT_START[variants[0]!];
    if (month === undefined) continue;
    const end = MONTHS[(month + 10) % 12]!;
    return { month, basis: `${profile.table}.${column.column} is ${variants[0]} for every row (SAP's ${MONTHS[month - 1]}–${end} variant)` };
  }
  return undefined;
}
