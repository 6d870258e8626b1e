/**
 * Merges the two sides of a period comparison (one aggregate per side) into ranked movements:
 * each group's change, change % and signed share of its currency's net change (drivers move
 * with the net, offsets against it), plus totals per currency and a one-line interpretation.
 */
import { formatAmount, formatPercent } from '../../src/skills/api.ts';
import { round } from './scope.ts';
import type { MovementRow } from './schemas.ts';

type Row = Record<string, string | number | null>;
type Total = { currency?: string; total_a: number; total_b: number; change: number; change_percent: number | null };

export interface Merged {
  totals: Total[];
  /** Every group, ranked: by currency, then by the size of the change. */
  rows: MovementRow[];
}

const percentOf = (change: number, base: number): number | null => (base === 0 ? null : round((change / Math.abs(base)) * 100));

/**
 * Aligns the groups of both sides by their key fields and ranks them.
 * @example
 * mergeSides([{ account: 'R', currency: 'EUR', value: 10 }], [{ account: 'R', currency: 'EUR', value: 15 }], ['account'], 'currency')
 * // { totals: [{ currency: 'EUR', total_a: 10, total_b: 15, change: 5, change_percent: 50 }], rows: [{ account: 'R', currency: 'EUR', a: 10, b: 15, change: 5, role: 'driver', … }] }
 */
export function mergeSides(sideA: Row[], sideB: Row[], keys: string[], currencyKey: string | undefined): Merged {
  const fields = currencyKey ? [...keys, currencyKey] : keys;
  const groups = new Map<string, { key: Row; a: number; b: number; inA: boolean; inB: boolean }>();
  const add = (row: Row, side: 'a' | 'b') => {
    const key = Object.fromEntries(fields.map((f) => [f, row[f] ?? null]));
    const id = JSON.stringify(fields.map((f) => key[f]));
    const group = groups.get(id) ?? { key, a: 0, b: 0, inA: false, inB: false };
    group[side] += Number(row.value ?? 0);
    if (side === 'a') group.inA = true;
    else group.inB = true;
    groups.set(id, group);
  };
  sideA.forEach((row) => add(row, 'a'));
  sideB.forEach((row) => add(row, 'b'));

  // Totals per currency: amounts of different currencies are never added.
  const totals = new Map<string, Total>();
  for (const group of groups.values()) {
    const currency = currencyKey ? String(group.key[currencyKey] ?? '') : '';
    const total = totals.get(currency) ?? { ...(currencyKey ? { currency } : {}), total_a: 0, total_b: 0, change: 0, change_percent: null };
    total.total_a += group.a;
    total.total_b += group.b;
    totals.set(currency, total);
  }
  for (const total of totals.values()) {
    total.total_a = round(total.total_a);
    total.total_b = round(total.total_b);
    total.change = round(total.total_b - total.total_a);
    total.change_percent = percentOf(total.change, total.total_a);
  }

  const rows: MovementRow[] = [...groups.values()].map((group) => {
    const net = totals.get(currencyKey ? String(group.key[currencyKey] ?? '') : '')!.change;
    const a = round(group.a);
    const b = round(group.b);
    const change = round(b - a);
    const role = change === 0 ? 'unchanged' : net === 0 || Math.sign(change) === Math.sign(net) ? 'driver' : 'offset';
    const status = !group.inA ? 'new' : !group.inB ? 'gone' : change === 0 ? 'unchanged' : 'changed';
    return { ...group.key, a, b, change, change_percent: percentOf(change, a), share_percent: net === 0 ? null : round((change / net) * 100), role, status };
  });
  const currencyOrder = [...totals.keys()].sort();
  rows.sort((x, y) => {
    const byCurrency = currencyKey ? currencyOrder.indexOf(String(x[currencyKey] ?? '')) - currencyOrder.indexOf(String(y[currencyKey] ?? '')) : 0;
    return byCurrency || Math.abs(y.change) - Math.abs(x.change) || JSON.stringify(fields.map((f) => x[f])).localeCompare(JSON.stringify(fields.map((f) => y[f])));
  });
  return { totals: currencyOrder.map((c) => totals.get(c)!), rows };
}

/**
 * One line: per currency the net change, the main driver and the largest offset.
 * @example
 * interpret(merged, ['group_account'], 'November 2024', 'December 2024', 'EUR')
 * // 'EUR: +83,300.00 from November 2024 to December 2024 (+5.09%); main driver group_account G4000000 +73,000.00 (87.64% of the change); …'
 */
export function interpret(merged: Merged, keys: string[], labelA: string, labelB: string, unit: string): string {
  if (merged.totals.length === 0) return `No rows in ${labelA} or ${labelB}.`;
  return merged.totals
    .map((total) => {
      const unitText = total.currency ?? unit;
      const own = merged.rows.filter((row) => (total.currency === undefined ? true : row.currency === total.currency));
      const sign = total.change > 0 ? '+' : '';
      const head = `${unitText ? `${unitText}: ` : ''}${sign}${formatAmount(total.change)} from ${labelA} to ${labelB}${total.change_percent === null ? '' : ` (${formatPercent(total.change_percent, { signed: true })})`}`;
      if (keys.length === 0 || total.change === 0) return head;
      const name = (row: MovementRow) => keys.map((k) => `${k} ${row[k] ?? '(blank)'}`).join(', ');
      const driver = own.find((row) => row.role === 'driver');
      const offset = own.find((row) => row.role === 'offset');
      const parts = [head];
      if (driver) parts.push(`main driver ${name(driver)} ${driver.change > 0 ? '+' : ''}${formatAmount(driver.change)} (${formatPercent(driver.share_percent ?? 0)} of the change)`);
      if (offset) parts.push(`largest offset ${name(offset)} ${offset.change > 0 ? '+' : ''}${formatAmount(offset.change)}`);
      return parts.join('; ');
    })
    .join(' | ');
}
