/**
 * Reads the figures an answer states: every number in the text, with the value it stands for
 * and what kind of number it is. Amounts and percentages are what the receipts check; years,
 * period codes, dates, company codes, account and document numbers, and counts of rows are
 * recognised as such so they are never mistaken for amounts. Locale-aware: the separators
 * come from Intl for the answer's locale ('443,100.00' in en, '443.100,00' in de), with a
 * lenient fallback for the other convention when the locale's reading is impossible ('24.8%'
 * in a German answer). Conservative: a figure with decimals, thousands separators, a k/M
 * suffix, a currency or % is a figure; a bare integer is a code, a year, a period or a count.
 */

export type FigureKind = 'amount' | 'percent' | 'count' | 'year' | 'period' | 'code';

/** One number as an answer states it. */
export interface Figure {
  /** The span as written, sign, parentheses and suffix included ('-1,234.50', '110k', '24.8%'). */
  text: string;
  /** Offsets of `text` in the answer (end exclusive). */
  start: number;
  end: number;
  /** The value it stands for: '110k' is 110000, '(1,234.50)' is -1234.5, '24.8%' is 24.8. */
  value: number;
  kind: FigureKind;
  /** Half a unit of the last digit written, times the suffix: 0.005 for '443,100.00', 500 for '110k'. */
  tolerance: number;
  /** Whether the text writes the sign ('-', '+', '−' or accounting parentheses). */
  signed: boolean;
}

export interface FigureOptions {
  /** BCP 47 locale the answer is written in (default en-US). */
  locale?: string;
  /** Extra words after which a bare integer is a code: the catalog's dimension names ('plant', 'segment'). */
  codeWords?: string[];
}

/** Words after which a bare integer names something rather than counts it (English and German). */
const CODE_WORDS = ['company', 'companies', 'account', 'accounts', 'period', 'periods', 'entity', 'entities', 'document', 'documents', 'doc', 'center', 'centre', 'code', 'codes', 'no', 'nr', 'number', 'id', 'ledger', 'version', 'buchungskreis', 'konto', 'periode', 'beleg', 'belegnummer', 'gesellschaft'];
const DEFAULT_CODE_WORDS = new Set(CODE_WORDS);
/** Short words after an integer that do not make it a count ('1000 and 2000'). */
const LINK_WORDS = new Set(['and', 'or', 'to', 'vs', 'versus', 'with', 'for', 'in', 'of', 'the', 'is', 'was', 'has', 'are', 'at', 'on', 'by', 'und', 'oder', 'bis', 'mit', 'für', 'im', 'von', 'der', 'die', 'das', 'ist', 'zu']);
/** Multipliers written after a number ('110k', '1.1 M', '3 Mio.', '2bn'). */
const MULTIPLIERS: [RegExp, number][] = [
  [/^(?:k|K|thousand|Tsd\.?|Tsd)$/, 1e3],
  [/^(?:m|M|mn|Mio\.?|million|millions|Millionen)$/, 1e6],
  [/^(?:bn|B|billion|billions|Mrd\.?|Milliarden)$/, 1e9],
];
const CURRENCY_SYMBOLS = '$€£¥₹₣₩₽';
const currencyCodes = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : ['EUR', 'USD', 'GBP', 'CHF', 'JPY']);

/** Dates and times, read before numbers so '2025-03', '15.03.2024', '12/2024' and '12:50' are one period each. */
const DATE = /(?<![\p{L}\p{N}_.,])(?:\d{4}-\d{2}(?:-\d{2})?|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{1,2}\/\d{4}|\d{1,2}:\d{2}(?::\d{2})?)(?![\p{N}])/gu;
/**
 * A number: optional sign, '(' and currency symbol, digits with separators (a space only in a
 * locale that groups with spaces, and only before three digits), an optional suffix or %, an optional ')'.
 */
function numberPattern(spaceGroups: boolean): RegExp {
  return (numberPatterns[String(spaceGroups)] ??= numberPatternSource(spaceGroups));
}
const numberPatterns: Record<string, RegExp> = {};

function numberPatternSource(spaceGroups: boolean): RegExp {
  const space = spaceGroups ? String.raw`|\s(?=\d{3}(?!\d))` : '';
  return new RegExp(
    String.raw`(?<open>\(\s?)?(?<sign>[+\-−]\s?)?(?<currency>[${CURRENCY_SYMBOLS}]\s?)?(?<digits>\d+(?:(?:[.,'’\u00a0\u202f]${space})\d+)*)` +
      String.raw`(?<suffix>\s?(?:%|percent\b|Prozent\b|pp\b|k|K|thousand|Tsd\.?|m|M|mn|Mio\.?|million|millions|Millionen|bn|B|billion|billions|Mrd\.?|Milliarden)(?![\p{L}\p{N}]))?(?<close>\s?\))?`,
    'gu',
  );
}

/**
 * Every figure stated in `text`, in order. List markers ('1. ' at a line start) and ordinals
 * ('2nd') are not figures and are left out.
 *
 * @example
 * figuresIn('FI shows 443,100.00 EUR for company 1000 in 2024012, up 24.8%.')
 * // [{ text: '443,100.00', value: 443100, kind: 'amount', tolerance: 0.005, … },
 * //  { text: '1000', kind: 'code', … }, { text: '2024012', kind: 'period', … }, { text: '24.8%', value: 24.8, kind: 'percent', … }]
 * figuresIn('Umsatz 443.100,00 EUR (−1,2 %)', { locale: 'de-DE' }).map((f) => f.value) // [443100, -1.2]
 */
export function figuresIn(text: string, options: FigureOptions = {}): Figure[] {
  const separators = separatorsOf(options.locale ?? 'en-US');
  const codeWords = options.codeWords?.length ? new Set([...CODE_WORDS, ...options.codeWords.map((word) => word.toLowerCase())]) : DEFAULT_CODE_WORDS;
  const figures: Figure[] = [];
  // Characters already read as a date or a code, so no number is read inside them again.
  const taken = new Uint8Array(text.length);
  for (const match of text.matchAll(DATE)) {
    figures.push({ text: match[0], start: match.index, end: match.index + match[0].length, value: Number(match[0].replace(/\D/g, '')), kind: 'period', tolerance: 0, signed: false });
    taken.fill(1, match.index, match.index + match[0].length);
  }
  for (const match of text.matchAll(numberPattern(separators.group === ' '))) {
    const groups = match.groups as { open?: string; sign?: string; currency?: string; digits: string; suffix?: string; close?: string };
    const digitsStart = match.index + match[0].indexOf(groups.digits);
    const digitsEnd = digitsStart + groups.digits.length;
    if (taken[digitsStart]) continue;
    // The text around the number (a short window: a long tool text must not cost a copy per number).
    const beforeEnd = digitsStart - (groups.currency?.length ?? 0) - (groups.sign?.length ?? 0) - (groups.open?.length ?? 0);
    const before = text.slice(Math.max(0, beforeEnd - 80), beforeEnd);
    const after = text.slice(digitsEnd + (groups.suffix?.length ?? 0), digitsEnd + 80);
    // A number glued to a word is part of a code, taken whole: G4000000, PC1020, IN01, Q3, REQ_2024_07, Dec-24.
    if (/[\p{L}_]-?$/u.test(before) || (/^[\p{L}_]/u.test(after) && !groups.suffix)) {
      if (/^(?:st|nd|rd|th)\b/.test(after)) continue; // an ordinal
      const start = digitsStart - (/[\p{L}\p{N}_-]*$/u.exec(text.slice(Math.max(0, digitsStart - 80), digitsStart))![0].replace(/^-+/, '').length);
      const end = digitsEnd + /^[\p{L}\p{N}_]*/u.exec(after)![0].length;
      figures.push(plain(text, start, end, 'code'));
      taken.fill(1, start, end);
      continue;
    }
    if (/(?:^|\n)[ \t]*$/.test(before) && /^[.)][ \t]/.test(after)) continue; // '1. ' or '2) ' list marker
    const parsed = parseDigits(groups.digits, separators);
    if (!parsed) {
      figures.push(plain(text, digitsStart, digitsEnd, 'code')); // '1.2.3': no number reading fits
      continue;
    }
    // A '-' after a digit or letter is a range or a hyphen ('2024001-2024012'), and '- ' at a line start a bullet: not signs.
    const bullet = /^[-−]\s/.test(groups.sign ?? '') && /(?:^|\n)[ \t]*$/.test(before);
    const sign = groups.sign && !bullet && !/[\p{L}\p{N}]$/u.test(before) ? groups.sign.trim() : '';
    const suffix = groups.suffix?.trim() ?? '';
    const percent = /^(?:%|percent|Prozent|pp)$/.test(suffix);
    const multiplier = percent ? 1 : (MULTIPLIERS.find(([pattern]) => pattern.test(suffix))?.[1] ?? 1);
    const nextWord = /^\s*([\p{L}]+)/u.exec(after)?.[1] ?? '';
    const wordBefore = /([\p{L}]+)\.?[\s:#]*$/u.exec(before)?.[1]?.toLowerCase() ?? '';
    const codeBefore = /(?:^|[ \t(])([A-Z]{3})[ \t]?$/.exec(before)?.[1];
    const currency = Boolean(groups.currency) || currencyCodes.has(nextWord) || (codeBefore !== undefined && currencyCodes.has(codeBefore));
    const integer = parsed.decimals === 0 && !parsed.grouped;
    const kind: FigureKind = percent ? 'percent'
      : multiplier !== 1 || currency || parsed.decimals > 0 ? 'amount'
      : integer && codeWords.has(wordBefore) ? (periodShaped(groups.digits) ? 'period' : 'code')
      : integer && periodShaped(groups.digits) ? 'period'
      : integer && /^(?:19|20)\d\d$/.test(groups.digits) ? 'year'
      : parsed.grouped ? 'amount'
      : nextWord && !LINK_WORDS.has(nextWord.toLowerCase()) ? 'count'
      : groups.digits.length >= 4 ? 'code' : 'count';
    if (kind !== 'amount' && kind !== 'percent' && kind !== 'count') {
      figures.push(plain(text, digitsStart, digitsEnd, kind));
      continue;
    }
    // Accounting parentheses make an amount negative; a percentage in parentheses is an aside.
    const accountingNegative = kind === 'amount' && Boolean(groups.open) && Boolean(groups.close) && !sign;
    const negative = sign === '-' || sign === '−' || accountingNegative;
    const start = accountingNegative ? match.index : digitsStart - (groups.currency?.length ?? 0) - (sign ? groups.sign!.length : 0);
    const end = accountingNegative ? match.index + match[0].length : digitsEnd + (groups.suffix?.length ?? 0);
    figures.push({
      text: text.slice(start, end),
      start,
      end,
      value: (negative ? -1 : 1) * parsed.value * multiplier,
      kind,
      tolerance: 0.5 * 10 ** -parsed.decimals * multiplier,
      signed: Boolean(sign) || accountingNegative,
    });
  }
  return figures.sort((a, b) => a.start - b.start);
}

/** A code, year or period: its digits read as an integer (IN01 is 1), checked against nothing. */
function plain(text: string, start: number, end: number, kind: FigureKind): Figure {
  return { text: text.slice(start, end), start, end, value: Number(text.slice(start, end).replace(/\D/g, '')) || 0, kind, tolerance: 0, signed: false };
}

/** 2024012 (year and 3-digit period, up to the special periods 013–016) or 202503 (year and month). */
function periodShaped(digits: string): boolean {
  const period = /^((?:19|20)\d\d)(0(?:0[1-9]|1[0-6])|0[1-9]|1[0-2])$/.exec(digits);
  return Boolean(period) && (digits.length === 7 || digits.length === 6);
}

/** The group and decimal separators of a locale, as Intl writes 12345.6. */
function separatorsOf(locale: string): { group: string; decimal: string } {
  return (separatorsByLocale[locale] ??= readSeparators(locale));
}
const separatorsByLocale: Record<string, { group: string; decimal: string }> = {};

function readSeparators(locale: string): { group: string; decimal: string } {
  let parts: Intl.NumberFormatPart[];
  try {
    parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  } catch {
    parts = new Intl.NumberFormat('en-US').formatToParts(12345.6);
  }
  const group = parts.find((part) => part.type === 'group')?.value ?? ',';
  return { group: /\s/.test(group) ? ' ' : group, decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.' };
}

/**
 * The value of a digit run with separators, or undefined when no reading fits. Two kinds of
 * separator: the last is the decimal one. One kind, several times: grouping. One separator
 * once: the locale decides, unless its reading is impossible (a group of other than 3 digits).
 */
function parseDigits(digits: string, locale: { group: string; decimal: string }): { value: number; decimals: number; grouped: boolean } | undefined {
  const normal = digits.replace(/[\u00a0\u202f\s’]/g, ' ');
  const marks = [...normal.matchAll(/[.,' ]/g)].map((mark) => mark[0]);
  const chunks = normal.split(/[.,' ]/);
  let decimalMark: string | undefined;
  if (new Set(marks).size > 1) decimalMark = marks.at(-1);
  else if (marks.length === 1) {
    const mark = marks[0];
    const groupable = chunks[1]?.length === 3 && mark !== locale.decimal;
    decimalMark = mark === ' ' || mark === "'" || groupable ? undefined : mark;
  }
  const integerChunks = decimalMark ? chunks.slice(0, -1) : chunks;
  if (decimalMark && marks.slice(0, -1).includes(decimalMark)) return undefined;
  if (integerChunks.slice(1).some((chunk) => chunk.length !== 3) || (integerChunks[0]?.length ?? 0) > 3 && integerChunks.length > 1) return undefined;
  const fraction = decimalMark ? chunks.at(-1)! : '';
  return { value: Number(`${integerChunks.join('')}.${fraction || '0'}`), decimals: fraction.length, grouped: integerChunks.length > 1 };
}
