/**
 * Number formatting for answers people read: thousands separators and two decimals,
 * the way finance reports print amounts, in the reader's locale (en-US by default).
 */

const formats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, digits: number, signed = false): Intl.NumberFormat {
  const key = `${locale}|${digits}|${signed}`;
  let format = formats.get(key);
  if (!format) {
    let resolved = 'en-US';
    try {
      resolved = Intl.NumberFormat.supportedLocalesOf([locale])[0] ?? 'en-US';
    } catch {
      // An invalid tag falls back to en-US rather than failing an answer.
    }
    format = new Intl.NumberFormat(resolved, { minimumFractionDigits: digits, maximumFractionDigits: digits, ...(signed ? { signDisplay: 'exceptZero' as const } : {}) });
    formats.set(key, format);
  }
  return format;
}

/**
 * 110000 → "110,000.00"; with a unit: "110,000.00 EUR"; in de-DE: "110.000,00 EUR".
 *
 * @example
 * formatAmount(-3646.01, 'EUR') // '-3,646.01 EUR'
 */
export function formatAmount(value: number, unit?: string | null, locale = 'en-US'): string {
  const text = numberFormat(locale, 2).format(value);
  return unit ? `${text} ${unit}` : text;
}

/**
 * 9.8765 → "9.9%"; signed: "+9.9%" / "-2.2%" (a difference percentage always shows its sign).
 *
 * @example
 * formatPercent(-2.16, { signed: true }) // '-2.2%'
 */
export function formatPercent(value: number, options: { signed?: boolean; locale?: string } = {}): string {
  return `${numberFormat(options.locale ?? 'en-US', 1, options.signed).format(value)}%`;
}
