/**
 * Conversation state of the offline model: the slots of the question being discussed. A
 * follow-up that only names some constraints ("and for 2000?", "same for Q2", "and the
 * actuals?") inherits the rest, over any number of turns; a question that names its own kind,
 * measure, grouping or (without a follow-up opener) sources starts fresh. The state rides on
 * the answer message (`response_metadata.offline_state`), so it is stored with the session
 * and survives restarts.
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Understanding } from '../../skills/questionForms.ts';
import type { Reading } from './understand.ts';

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
export function resolve(reading: Reading, previous: ConversationState | undefined): { question: Understanding; inherited: boolean } {
  const fresh = reading.complete || (reading.sources.length > 0 && !reading.elliptical);
  if (!previous || fresh) return { question: reading, inherited: false };
  const before = previous.question;
  const filters = { ...before.filters, ...reading.filters };
  // A new version replaces the versions compared; a new period replaces the periods compared.
  if (reading.versions.length && !reading.filters.version) delete filters.version;
  return {
    inherited: true,
    question: {
      text: reading.text,
      sources: reading.sources.length ? reading.sources : before.sources,
      measure: reading.measure ?? before.measure,
      filters,
      groupBy: reading.groupBy.length ? reading.groupBy : before.groupBy,
      dimensions: reading.dimensions.length ? reading.dimensions : before.dimensions,
      versions: reading.versions.length >= 2 || (reading.versions.length === 1 && before.versions.length < 2) ? reading.versions : before.versions,
      periods: reading.periods.length ? reading.periods : before.periods,
      intents: new Set([...before.intents, ...reading.intents]),
      unknown: reading.unknown,
    },
  };
}
