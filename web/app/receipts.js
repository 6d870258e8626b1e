/**
 * Receipts of an answer's figures, as words (no DOM; figures.js draws them). POST /chat
 * returns `figures`: every number the answer states with its receipt, a place in a tool result
 * (`{kind: 'value', call, path}`), a derivation from such places, a quote, or `unverified`. Here a
 * receipt becomes what a reader needs to trust the number: the tool, its source and filters (the
 * call's arguments), the row the number sits in, and for a derived figure the formula in words.
 * `placeFigures` finds each figure's text in the rendered answer's text nodes, in order, because
 * the figures' offsets count the raw answer, which markdown.js renders without its `**` and `- `.
 */
import { filterValueText } from './labels.js';
import { fiscalYearStartOf, formatDimensionValue } from './periods.js';
import { describeCall, sideNames } from './results.js';

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Kinds that are labels, not quantities: never wrapped, never checked. */
const NOT_QUANTITIES = new Set(['year', 'period', 'code']);
/** A quoted passage longer than this is cut, so the popover stays small. */
const MAX_QUOTE = 160;

/**
 * Whether a figure gets a receipt in the answer: amounts, percents and counts a receipt backs,
 * and every unverified figure (it must be marked), never years, periods or codes.
 * @param {{kind?: string, receipt?: {kind?: string}}} figure
 * @returns {boolean}
 * @example
 * hasReceipt({ kind: 'amount', receipt: { kind: 'value', call: 'c1', path: 'rows[0].amount' } }) // true
 * hasReceipt({ kind: 'year', receipt: { kind: 'not_a_figure' } }) // false
 */
export function hasReceipt(figure) {
  const receipt = figure?.receipt?.kind;
  if (receipt === 'unverified') return true;
  return typeof receipt === 'string' && receipt !== 'not_a_figure' && !NOT_QUANTITIES.has(figure.kind);
}

/**
 * A result path's steps: `summary.totals[0].total_a` → ['summary', 'totals', 0, 'total_a'].
 * @param {string} path
 * @returns {Array<string | number>}
 * @example
 * pathSteps('rows[3].amount') // ['rows', 3, 'amount']
 */
export function pathSteps(path) {
  return [...String(path ?? '').matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] !== undefined ? Number(match[2]) : match[1]));
}

const walk = (value, steps) => steps.reduce((current, step) => (current !== null && typeof current === 'object' ? current[step] : undefined), value);

/** The labels of a row: its text fields (dimension values), outer rows first (`dimension: group_account` before `value: G4000000`). */
function rowLabels(result, steps, context) {
  const labels = [];
  for (let index = 0; index < steps.length; index += 1) {
    if (typeof steps[index] !== 'number') continue;
    const row = walk(result, steps.slice(0, index + 1));
    if (!isRecord(row)) continue;
    for (const [key, value] of Object.entries(row)) {
      if (key === steps[index + 1] || !(typeof value === 'string' || value === null)) continue;
      if (value === null && key !== 'value') continue;
      labels.push(`${key} ${formatDimensionValue(key, value ?? '(blank)', context)}`);
    }
  }
  return labels;
}

/** The call's arguments, or for a follow-up by comparison id (explain_difference) those of the comparison it continues. */
function sourceArgs(call, calls) {
  const args = isRecord(call?.args) ? call.args : {};
  if (args.source !== undefined || args.source_a !== undefined || typeof args.comparison_id !== 'string') return args;
  const origin = calls.find((other) => other !== call && isRecord(other?.result) && other.result.comparison_id === args.comparison_id && isRecord(other.args));
  return origin ? origin.args : args;
}

/** `fi_reporting`, or `fi_reporting vs bpc_reporting`. */
function sourcesText(args) {
  if (typeof args.source === 'string') return args.source;
  if (typeof args.source_a === 'string' || typeof args.source_b === 'string') return [args.source_a, args.source_b].filter((name) => typeof name === 'string').join(' vs ');
  return undefined;
}

/** `company 1000 · period December 2024`; side-only filters say their side. */
function filtersText(args, sides, context) {
  const parts = [];
  const add = (filters, suffix) => {
    if (!isRecord(filters)) return;
    for (const [key, value] of Object.entries(filters)) parts.push(`${key} ${filterValueText(key, value, context)}${suffix}`);
  };
  add(args.filters, '');
  add(args.filters_a, sides ? ` (${sides.a})` : ' (A)');
  add(args.filters_b, sides ? ` (${sides.b})` : ' (B)');
  return parts.length ? parts.join(' · ') : undefined;
}

/** A field name, with the side it measures: `total_a` → `total_a (fi_reporting)`. */
function fieldText(field, sides) {
  const side = /(?:^|_)([ab])$/.exec(String(field))?.[1];
  return sides && side ? `${field} (${sides[side]})` : String(field);
}

function formatAmount(value, locale) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return String(value ?? '?');
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 6 }).format(value);
}

/**
 * One place in a result: its call, tool, value, field and row, as the receipt's lines read it.
 * @returns {{call: object | undefined, tool: string, value: unknown, field: string, row: string[], label: string}}
 */
function placeOf(reference, calls, { locale }) {
  const call = calls.find((candidate) => candidate?.id === reference?.call);
  // Rows and sides name periods in the catalog's fiscal year, as the Filters line does.
  const context = { locale, fiscalYearStart: fiscalYearStartOf(call?.presentation?.fiscal_year_start) };
  const steps = pathSteps(reference?.path);
  const value = call ? walk(call.result, steps) : undefined;
  const args = sourceArgs(call, calls);
  const sides = call && typeof args.source_a === 'string' ? sideNames(call, calls, context) : undefined;
  const field = fieldText(steps.at(-1) ?? '?', sides);
  const row = call ? rowLabels(call.result, steps, context) : [];
  // A call the chat no longer has (a conversation reopened without it): say so rather than guess.
  const tool = call?.name ?? `tool call ${reference?.call ?? '?'} (not in this chat)`;
  return { call, tool, value, field, row, label: `${field} = ${formatAmount(value, context.locale)}` };
}

const OPS = {
  difference: (values) => `difference of ${values.join(' − ')}`,
  sum: (values) => `sum of ${values.join(' + ')}`,
  average: (values) => `average of ${values.join(', ')} (their sum ÷ ${values.length})`,
  percent_change: (values) => `change in percent from ${values[0]} to ${values[1]}: (${values[1]} − ${values[0]}) ÷ |${values[0]}| × 100`,
  share: (values) => `share of ${values[0]} in ${values[1]}: ${values[0]} ÷ ${values[1]} × 100`,
};

/**
 * What a figure's receipt says, as lines of words for its popover.
 * @param {{text: string, kind?: string, value?: number, receipt: {kind: string, call?: string, path?: string,
 *   op?: string, of?: Array<{call: string, path: string}>, sign_differs?: boolean}}} figure one of `figures`
 * @param {Array<{id: string, name: string, args?: unknown, result?: unknown, presentation?: object}>} calls the answer's `tool_calls`
 * @param {{locale?: string}} [options]
 * @returns {{status: 'verified' | 'unverified', title: string, lines: Array<{label: string, text: string}>}}
 * @example
 * describeReceipt({ text: '443,100.00', kind: 'amount', receipt: { kind: 'value', call: 'c1', path: 'summary.totals[0].total_a' } }, calls)
 * // {status: 'verified', title: 'From compare_sources', lines: [{label: 'Tool', text: 'compare_sources'},
 * //  {label: 'Source', text: 'fi_reporting vs bpc_reporting'}, {label: 'Filters', text: 'company 1000 · period December 2024'},
 * //  {label: 'Row', text: 'currency EUR'}, {label: 'Value', text: 'total_a (fi_reporting) = 443,100'}]}
 */
export function describeReceipt(figure, calls = [], { locale = 'en-US' } = {}) {
  const receipt = figure?.receipt ?? { kind: 'unverified' };
  const list = Array.isArray(calls) ? calls : [];
  if (receipt.kind === 'unverified' || !receipt.kind) {
    return { status: 'unverified', title: '⚠ Unverified', lines: [{ label: 'Warning', text: 'No tool result backs this figure. Check it before you use it.' }] };
  }
  if (receipt.kind === 'not_a_figure') return { status: 'verified', title: 'Not checked', lines: [{ label: 'Kind', text: `a ${figure.kind ?? 'label'}, not a quantity` }] };
  const references = receipt.kind === 'derived' ? (Array.isArray(receipt.of) ? receipt.of : []) : [{ call: receipt.call, path: receipt.path }];
  const places = references.map((reference) => placeOf(reference, list, { locale }));
  const lines = [];
  const tools = [...new Set(places.map((place) => place.tool))];
  lines.push({ label: tools.length > 1 ? 'Tools' : 'Tool', text: tools.join(', ') });
  // Source and filters of each distinct call the figure reads.
  for (const call of [...new Set(places.map((place) => place.call).filter(Boolean))]) {
    const args = sourceArgs(call, list);
    const fiscalYearStart = fiscalYearStartOf(call.presentation?.fiscal_year_start);
    const context = { locale, fiscalYearStart };
    const sides = typeof args.source_a === 'string' ? sideNames(call, list, context) : undefined;
    const source = sourcesText(args) ?? describeCall(call, { locale, calls: list });
    if (source) lines.push({ label: 'Source', text: source });
    const filters = filtersText(args, sides, context);
    if (filters) lines.push({ label: 'Filters', text: filters });
  }
  if (receipt.kind === 'derived') {
    const op = OPS[receipt.op] ?? ((values) => `${receipt.op ?? 'derivation'} of ${values.join(', ')}`);
    lines.push({ label: 'Formula', text: `${op(places.map((place) => formatAmount(place.value, locale)))} = ${formatAmount(figure.value, locale)}` });
    places.forEach((place, index) => {
      lines.push({ label: `Operand ${index + 1}`, text: [place.label, ...place.row].join(' · ') });
    });
  } else {
    const [place] = places;
    if (place.row.length) lines.push({ label: 'Row', text: place.row.join(' · ') });
    if (receipt.kind === 'quote') {
      const text = typeof place.value === 'string' ? place.value : String(place.value ?? '');
      lines.push({ label: 'Quoted from', text: `${place.field}: “${text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE - 1)}…` : text}”` });
    } else {
      lines.push({ label: 'Value', text: place.label });
    }
  }
  if (receipt.sign_differs) lines.push({ label: 'Note', text: 'The answer states the size of a negative number.' });
  const title = receipt.kind === 'derived' ? `Derived from ${tools.join(', ')}` : receipt.kind === 'quote' ? `Quoted from ${tools.join(', ')}` : `From ${tools.join(', ')}`;
  return { status: 'verified', title, lines };
}

/** The first `text` in `haystack` from `from` that is not part of a longer number ('1000' in '21000'). */
function findWhole(haystack, text, from) {
  for (let start = haystack.indexOf(text, from); start >= 0; start = haystack.indexOf(text, start + 1)) {
    const before = haystack[start - 1] ?? '';
    const after = haystack[start + text.length] ?? '';
    if (!/[\d.,]/.test(before) && !/\d/.test(after) && !/[.,]\d/.test(haystack.slice(start + text.length, start + text.length + 2))) return start;
  }
  return -1;
}

/**
 * Where each figure's text sits in the rendered answer's text nodes, searching in order from the
 * previous figure's end (so a company code '1000' is never taken for a later amount '1000').
 * A figure not found (split across a `**bold**` boundary) is left out; the rest still match.
 * @param {string[]} texts the rendered text nodes' contents, in document order
 * @param {Array<{text: string}>} figures in answer order
 * @returns {Array<{figure: number, node: number, start: number, end: number}>}
 * @example
 * placeFigures(['Total ', '443,100.00', ' EUR in 2024'], [{ text: '443,100.00' }, { text: '2024' }])
 * // [{figure: 0, node: 1, start: 0, end: 10}, {figure: 1, node: 2, start: 8, end: 12}]
 */
export function placeFigures(texts, figures) {
  const places = [];
  let node = 0;
  let offset = 0;
  figures.forEach((figure, index) => {
    const text = String(figure?.text ?? '');
    if (!text) return;
    for (let at = node, from = offset; at < texts.length; at += 1, from = 0) {
      const start = findWhole(texts[at], text, from);
      if (start < 0) continue;
      places.push({ figure: index, node: at, start, end: start + text.length });
      node = at;
      offset = start + text.length;
      return;
    }
  });
  return places;
}
