/**
 * The one-paragraph explanation explain_difference returns, for people: what kind of cause the
 * breakdown points to, then the figures behind it. Every figure comes from the breakdown.
 */
import { formatAmount, listOf as listText, plural } from '../../src/skills/api.ts';
import type { DuplicatedLoad } from './duplicatedLoad.ts';
import type { Contribution, Items, RankedDimension } from './gapBreakdown.ts';
import type { OneSided } from './oneSidedCauses.ts';

/** What the explanation leads with; explain_difference returns it as `cause`. */
export type Cause = 'duplicated_load' | 'uniform_rate' | 'single_value' | 'drivers' | 'none';

export interface ExplanationParts {
  /** A row of the comparison, or the net of all its rows. */
  target: 'row' | 'net';
  /** "at company 1000, period 2024012" or "for company 2000". */
  where: string;
  gap: number;
  currency: string | null;
  nameA: string;
  nameB: string;
  /** For a net: aligned rows of the comparison, and how many differ. */
  rows?: { aligned: number; differing: number };
  ranked: RankedDimension[];
  /** The dimension that locates a duplicated load (a business one, not the record key). */
  location?: RankedDimension;
  items?: Items;
  duplicated?: DuplicatedLoad;
  oneSided: OneSided[];
}

const LISTED = 3;
const label = (name: string) => name.replace(/_/g, ' ');
const value = (v: string | number | null | undefined) => (v === null || v === undefined ? '(blank)' : String(v));
const signed = (amount: number, currency: string | null) => `${amount > 0 ? '+' : ''}${formatAmount(amount, currency)}`;

/**
 * The kind of cause a breakdown points to, most specific first.
 *
 * @example
 * causeOf(byDimension, duplicatedLoad) // 'duplicated_load'
 */
export function causeOf(ranked: readonly RankedDimension[], duplicated: DuplicatedLoad | undefined): Cause {
  const best = ranked[0];
  if (duplicated && duplicated.explains_percent >= 50) return 'duplicated_load';
  if (ranked.some((r) => r.uniform_percent !== undefined) && (!best || best.explains_percent < 99.5)) return 'uniform_rate';
  if (!best || !best.values[0]) return 'none';
  return best.values[0].role === 'driver' && best.explains_percent >= 99.5 ? 'single_value' : 'drivers';
}

/**
 * The explanation, e.g. "The net gap of 67,149.37 USD for company 2000 (… higher; 12 of 12
 * aligned rows differ) is driven by group account G5100000 (+168,949.37 USD, 251.6% of the net)
 * …, offset by G4000000 (-108,400.00 USD, -161.4%) …".
 *
 * @example
 * explanationText({ target: 'row', where: 'at company 1000, period 2024012', gap: 110000, currency: 'EUR', nameA: 'fi_reporting', nameB: 'bpc_reporting', ranked, oneSided })
 * // 'The gap of 110,000.00 EUR at company 1000, period 2024012 (fi_reporting higher) is entirely group account G4000000. …'
 */
export function explanationText(parts: ExplanationParts): string {
  const { gap, currency, ranked, duplicated } = parts;
  const higher = gap > 0 ? parts.nameA : parts.nameB;
  const of = parts.target === 'net' ? 'net' : 'gap';
  const sentences =
    parts.target === 'net'
      ? [`The net gap of ${formatAmount(Math.abs(gap), currency)} ${parts.where} (${higher} higher; ${parts.rows?.differing ?? '?'} of ${parts.rows?.aligned ?? '?'} aligned rows differ)`]
      : [`The gap of ${formatAmount(Math.abs(gap), currency)} ${parts.where} (${higher} higher)`];
  const best = ranked[0];
  const cause = causeOf(ranked, duplicated);
  if (cause === 'duplicated_load') {
    sentences[0] += ` is ${duplicated!.explains_percent >= 99.5 ? 'a' : 'mostly a'} duplicated load: ${duplicateText(duplicated!, gap, currency, of)}.`;
    const top = parts.location?.values[0];
    if (top && top.role === 'driver' && parts.location!.explains_percent >= 99.5) sentences.push(`It sits entirely in ${label(parts.location!.dimension)} ${value(top.value)}.`);
  } else if (cause === 'uniform_rate') {
    const uniform = ranked.filter((r) => r.uniform_percent !== undefined).sort((x, y) => y.values.length - x.values.length)[0]!;
    sentences[0] += ` is not one posting: every ${label(uniform.dimension)} differs by the same ${uniform.uniform_percent}%, which points to a different rate (e.g. currency translation) in one source.`;
  } else if (cause === 'single_value') {
    sentences[0] += ` is entirely ${label(best!.dimension)} ${value(best!.values[0]!.value)}.`;
  } else if (cause === 'drivers') {
    sentences[0] += ` ${contributionText(best!, currency, of)}.`;
  } else {
    sentences[0] += '.';
  }
  if (parts.items && cause === 'drivers') sentences.push(itemsText(parts.items, parts, currency));
  if (duplicated && cause !== 'duplicated_load') {
    sentences.push(`Duplicated records add to it: ${duplicateText(duplicated, gap, currency, of)}.`);
  }
  for (const found of parts.oneSided.slice(0, 3)) {
    const target = found.difference_of ? Math.abs(itemDifference(parts.items, found.difference_of) ?? gap) : Math.abs(gap);
    const exactly = Math.abs(Math.abs(found.amount) - target) < 0.005 ? 'exactly' : 'about';
    const what = found.difference_of ? `the difference at ${keyText(found.difference_of)}` : 'the gap';
    sentences.push(`In ${found.source}, ${label(found.dimension)} ${value(found.value)} holds ${formatAmount(found.amount, currency)}, ${exactly} ${what}.`);
  }
  return sentences.join(' ');
}

/** "is driven by group account G5100000 (+168,949.37 USD, 251.6% of the net) and …, offset by G4000000 (…)". */
function contributionText(dimension: RankedDimension, currency: string | null, of: string): string {
  const listed = (values: Contribution[], total: number, first: boolean) => {
    const texts = values.slice(0, LISTED).map((v, index) => `${value(v.value)} (${signed(v.difference, currency)}, ${v.share_percent.toFixed(1)}%${first && index === 0 ? ` of the ${of}` : ''})`);
    if (total > texts.length) texts.push(`${total - texts.length} more`);
    return listText(texts);
  };
  const drivers = dimension.values.filter((v) => v.role === 'driver');
  const offsets = dimension.values.filter((v) => v.role === 'offset');
  const driven = `is driven by ${label(dimension.dimension)} ${listed(drivers, dimension.driver_count, true)}`;
  return offsets.length ? `${driven}, offset by ${listed(offsets, dimension.offset_count, false)}` : driven;
}

/** "By group account and period, the largest driver is …, the largest offset …". */
function itemsText(items: Items, parts: ExplanationParts, currency: string | null): string {
  const item = (entry: Items['drivers'][number]) => {
    const where = items.dimensions.map((d) => `${label(d)} ${value(entry[d])}`).join(', ');
    const only = entry.status === 'only_in_a' ? `, only in ${parts.nameA}` : entry.status === 'only_in_b' ? `, only in ${parts.nameB}` : '';
    return `${where} (${signed(entry.difference, currency)}${only})`;
  };
  const offset = items.offsets[0] ? `, the largest offset ${item(items.offsets[0])}` : '';
  return `By ${listText(items.dimensions.map(label))}, the largest driver is ${item(items.drivers[0]!)}${offset}.`;
}

/** "4 lines (3 documents) first loaded under load request R1 were loaded again into S under R2, adding …". */
function duplicateText(d: DuplicatedLoad, gap: number, currency: string | null, of: string): string {
  const what = `${plural(d.lines, 'line')}${d.documents !== undefined ? ` (${plural(d.documents, label(d.document_dimension!))})` : ''}`;
  const loads = (values: (string | null)[]) => `${label(d.dimension)}${values.length === 1 ? '' : 's'} ${listText(values.map(value))}`;
  const first = d.original_load_requests.length ? ` first loaded under ${loads(d.original_load_requests)}` : '';
  const again = d.copies > 2 ? `loaded ${d.copies} times in all` : 'loaded again';
  const exactly = Math.abs(Math.abs(d.amount) - Math.abs(gap)) < 0.005 && d.explains_percent >= 99.5;
  const share = exactly ? `, exactly the ${of}` : ` (${d.explains_percent}% of the ${of})`;
  const once = d.once_in_other_source ? `; ${d.other_source} holds each of them once` : '';
  return `${what}${first} were ${again} into ${d.source} under ${loads(d.load_requests)}, adding ${formatAmount(d.amount, currency)}${share}${once}`;
}

function keyText(key: Record<string, string | number | null>): string {
  return Object.entries(key).map(([name, v]) => `${label(name)} ${value(v)}`).join(', ');
}

function itemDifference(items: Items | undefined, key: Record<string, string | number | null>): number | undefined {
  return items?.drivers.find((item) => Object.entries(key).every(([name, v]) => item[name] === v))?.difference;
}
