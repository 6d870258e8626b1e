/**
 * Number formatting for answers people read: thousands separators and two decimals,
 * the way finance reports print amounts.
 */

const amountFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percentFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** 110000 → "110,000.00"; with a unit: "110,000.00 EUR". */
export function formatAmount(value: number, unit?: string | null): string {
  const text = amountFormat.format(value);
  return unit ? `${text} ${unit}` : text;
}

/** 9.8765 → "9.9%". */
export function formatPercent(value: number): string {
  return `${percentFormat.format(value)}%`;
}
