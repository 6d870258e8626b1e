/**
 * Conversation state of the offline model: the slots of the question being discussed. A
 * follow-up that only names some constraints ("and for 2000?", "same for Q2", "and the
 * actuals?") inherits the rest, over any number of turns; a question that names its own kind,
 * measure, grouping or (without a follow-up opener) sources starts fresh. The state rides on
 * the answer message (`response_metadata.offline_state`), so it is stored with the session
 * and survives restarts.
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { FilterValue, Understanding } from '../../skills/questionForms.ts';
import { qualifyingIntents, type Reading } from './understand.ts';

/** What is stored: the understood question and the form that answered it. */
export interface ConversationState {
  form: string;
  question: Omit<Understanding, 'intents' | 'text' | 'unknown'> & { intents: string[] };
}

export const STATE_KEY = 'offline_state';

/** The state of the latest answered question before `beforeIndex`, if any. */
export function previousState(messages: readonly BaseMessage[], beforeIndex: number): ConversationState | undefined {
  for (let index = beforeIndex - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (!AIMessage.isInstance(message)) continue;
    const state = message.response_metadata?.[STATE_KEY] as ConversationState | undefined;
    if (state && typeof state.form === 'string' && state.question) return state;
  }
  return undefined;
}

/** The state to store after answering `question` with `form`. */
export function stateOf(question: Understanding, form: string): ConversationState {
  const { intents, text: _text, unknown: _unknown, ...slots } = question;
  return { form, question: { ...slots, intents: [...intents] } };
}

/**
 * The question to answer: the reading alone when it starts fresh, else the previous question
 * with what the reading names put over it.
 *
 * @example
 * // previous: total amount in fi_reporting for company 1000, December 2024; reading: "and for 2000?"
 * resolve(reading, previous).filters // { company: '2000', period: '2024012' }
 */
export function resolve(reading: Reading, previous: ConversationState | undefined): Understanding {
  // A question stands alone when it names what to read (sources or constraints) and its own kind,
  // measure or grouping, or names sources without a follow-up opener. "Split by group account"
  // names only a grouping: it is about the question before.
  const standsAlone = reading.sources.length > 0 || Object.keys(reading.filters).some((name) => name !== 'version' && name !== 'period');
  // "how big is that in EUR?" names a currency, and still points back at the question before;
  // "how does that compare with the budget?" names a source, and points back too.
  const pointsBack = reading.refersBack && (reading.sources.length === 0 || Object.keys(reading.filters).every((name) => name === 'version' || name === 'period'));
  // "and between the mart and BPC in group currency?": a follow-up opener keeps the company and period.
  const fresh = standsAlone && !pointsBack && !reading.elliptical && (reading.complete || reading.sources.length > 0);
  if (!previous) return reading;
  const before = previous.question;
  // "Q1" with no year takes the year of the question before, also when it starts afresh.
  const dated = datedBy(reading, before.filters.period);
  if (fresh) return { ...reading, filters: dated };
  const filters = { ...before.filters, ...dated };
  // "and at September?" after a year-to-date question: year to date at September.
  const yearToDate = before.intents.includes('year_to_date') && typeof dated.period === 'string';
  if (yearToDate) filters.period = { from: `${(dated.period as string).slice(0, 4)}001`, to: dated.period as string };
  // A follow-up that names its own kind ("any duplicates?") keeps the data, not the old kind.
  const ownKinds = [...reading.intents].filter((intent) => !qualifyingIntents.has(intent));
  const intents = ownKinds.length ? new Set([...reading.intents, ...before.intents.filter((i) => qualifyingIntents.has(i) && i !== 'why')]) : new Set([...before.intents, ...reading.intents]);
  const sources = reading.sources.length ? reading.sources : ownKinds.length ? before.sources.slice(0, 1) : before.sources;
  // A new version replaces the versions compared; a new period replaces the periods compared.
  if (reading.versions.length && !reading.filters.version) delete filters.version;
  // "how far off budget is that?" after the forecast: that version against the one named.
  const [was] = before.versions;
  const against = reading.refersBack && ownKinds.length > 0 && reading.versions.length === 1 && before.versions.length === 1 && was !== reading.versions[0] ? [was!, reading.versions[0]!] : undefined;
  if (against) delete filters.version;
  return {
    text: reading.text,
    sources,
    measure: reading.measure ?? before.measure,
    filters,
    groupBy: reading.groupBy.length ? reading.groupBy : before.groupBy,
    dimensions: reading.dimensions.length ? reading.dimensions : before.dimensions,
    versions: against ?? (reading.versions.length >= 2 || (reading.versions.length === 1 && before.versions.length < 2) ? reading.versions : before.versions),
    periods: reading.periods.length ? reading.periods : before.periods,
    intents,
    unknown: reading.unknown,
    ...(reading.count ?? before.count) !== undefined ? { count: reading.count ?? before.count } : {},
    // "and for 2000?" after a total excluding intercompany still leaves it out; a new kind of question does not.
    ...((reading.excluded ?? (ownKinds.length ? undefined : before.excluded)) ? { excluded: reading.excluded ?? before.excluded } : {}),
  };
}

/**
 * What the conversation remembers of a turn. A conversion of the figure before ("how big is that
 * in EUR?", "what is that in group currency?": it points back and names only a measure) is a view
 * of that figure, not a new subject: the next follow-up ("on which account was it posted?") is
 * about the figure in its source's own measure again, so the measure before is remembered.
 *
 * @example
 * // before: manual adjustments in bpc_reporting (local amount); reading: "how big is that in EUR?"
 * remembered(reading, question, previous).measure // undefined (the source's default), not amount_gc
 */
export function remembered(reading: Reading, question: Understanding, previous: ConversationState | undefined): Understanding {
  // "in EUR" is read as a currency filter, which a form turns into the group-currency measure.
  const named = Object.keys(reading.filters);
  const converts = reading.measure !== undefined || named.includes('currency');
  const conversion = reading.refersBack && converts && reading.sources.length === 0 && reading.groupBy.length === 0 && named.every((name) => name === 'currency');
  if (!previous || !conversion) return question;
  const before = previous.question;
  const { measure: _converted, filters, ...rest } = question;
  const { currency: _currency, ...kept } = filters;
  return {
    ...rest,
    filters: before.filters.currency === undefined ? kept : { ...kept, currency: before.filters.currency },
    measure: before.measure,
  };
}

/**
 * The reading's filters with a period that names no year ("what was budgeted for Q2?") moved into
 * the fiscal year of the question before (Q2 FY2024 after a question about FY2024).
 */
function datedBy(reading: Reading, before: FilterValue | undefined): Reading['filters'] {
  const year = fiscalYearOf(before);
  const period = reading.filters.period;
  if (!reading.undated.length || year === undefined || period === undefined) return reading.filters;
  // Every code moves by the same number of years, so a range across a year end stays a range.
  const first = typeof period === 'string' ? period : Array.isArray(period) ? String(period[0]) : typeof period === 'object' && period !== null && 'from' in period ? period.from : undefined;
  if (first === undefined || !/^\d{7}$/.test(first)) return reading.filters;
  const shift = Number(year) - Number(first.slice(0, 4));
  const move = (code: string) => (/^\d{7}$/.test(code) ? `${Number(code.slice(0, 4)) + shift}${code.slice(4)}` : code);
  const moved = typeof period === 'string' ? move(period) : Array.isArray(period) ? period.map((p) => move(String(p))) : typeof period === 'object' && period !== null && 'from' in period ? { from: move(period.from), to: move(period.to) } : period;
  return { ...reading.filters, period: moved as FilterValue };
}

/** The fiscal year of a period filter (a YYYYPPP code, a list or a range within one year). */
export function fiscalYearOf(period: FilterValue | undefined): string | undefined {
  const codes = typeof period === 'string' ? [period] : Array.isArray(period) ? period.map(String) : typeof period === 'object' && period !== null && 'from' in period ? [period.from, period.to] : [];
  const years = new Set(codes.filter((code) => /^\d{7}$/.test(code)).map((code) => code.slice(0, 4)));
  return years.size === 1 ? [...years][0] : undefined;
}
