/**
 * Keeps what the model is sent within a token budget however long the conversation gets,
 * while the stored history stays complete. When the history is over budget, tool results of
 * older turns are replaced by compact summaries; if that is not enough, the oldest whole
 * turns are dropped and one note at the start summarises them. The recent turns always go
 * verbatim, and every assistant tool call keeps exactly its tool results right after it.
 *
 * Tokens are estimated (tokenEstimate.ts), and tool results are summarised by their tools'
 * own `summarize` (toolResultSummary.ts); this module decides what is kept, summarised or dropped.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { cut, textOf, wireToolCalls } from '../shared/messageText.ts';
import { HISTORY_TOKEN_BUDGET, RECENT_TURNS_KEPT } from './constants.ts';
import { CHARS_PER_TOKEN, estimateTokens, messageTokens, TOKENS_PER_REQUEST } from './tokenEstimate.ts';
import { summariseToolResults, type SummarisedTurn, type ToolSummaries } from './toolResultSummary.ts';

export interface ContextBudget {
  /** Most tokens the history may take (estimated with {@link estimateTokens}). */
  maxTokens: number;
  /** Turns always kept verbatim (most recent), even when they alone exceed maxTokens. */
  keepRecentTurns: number;
}

/** The service's history budget (src/agent/constants.ts): the one budget every question uses. */
export const DEFAULT_CONTEXT_BUDGET: ContextBudget = Object.freeze({ maxTokens: HISTORY_TOKEN_BUDGET, keepRecentTurns: RECENT_TURNS_KEPT });

export interface FittedHistory {
  messages: BaseMessage[];
  estimatedTokens: number;
  /** Tool results replaced by a summary. */
  summarisedToolResults: number;
  /** Oldest turns left out and described in the summary note instead. */
  droppedTurns: number;
}

/** Questions and answers of dropped turns are cut to this many characters in the note. */
const MAX_NOTE_QUESTION_CHARS = 200;
const MAX_NOTE_ANSWER_CHARS = 200;
/** The note takes at most this many characters, and at most this share of the budget. */
const MAX_NOTE_CHARS = 3_000;
const MAX_NOTE_BUDGET_SHARE = 0.25;
/** Even in a tiny budget, the latest dropped turn gets this many characters. */
const MIN_NOTE_LINE_CHARS = 80;

const SUMMARY_NOTE_ID = 'context-window-summary';
const SUMMARY_NOTE_TITLE = 'Summary of earlier conversation';

/** True for the note {@link fitHistory} puts in place of the turns it drops. */
export function isHistorySummary(message: BaseMessage): boolean {
  return SystemMessage.isInstance(message) && message.id === SUMMARY_NOTE_ID;
}

/**
 * Returns the history to send: never mutates its input. A "turn" starts at a HumanMessage and runs to the next one
 * (leading SystemMessages are kept as they are and never counted as a turn).
 * A history within budget is returned unchanged. Otherwise:
 * 1. Tool results of turns older than the last `keepRecentTurns` are replaced by a compact JSON summary
 *    (same tool_call_id and name, so the assistant's tool calls stay answered).
 * 2. If still over budget, the oldest whole turns are dropped and replaced by ONE SystemMessage note at the start
 *    ("Summary of earlier conversation: Q: … → A: …" for each dropped turn), never splitting an assistant tool-call
 *    message from its tool results.
 * 3. The result is valid for the OpenAI chat format: every AIMessage with tool calls is followed by exactly its
 *    ToolMessages (an input that breaks this is repaired: stray tool results are left out, a missing one is stated).
 * When the recent turns alone exceed the budget they are still sent verbatim: `estimatedTokens` then exceeds `maxTokens`.
 * `tools` (the skill registry) summarises each tool's results in its own words; without it, summaries are generic.
 */
export function fitHistory(history: readonly BaseMessage[], budget: ContextBudget = DEFAULT_CONTEXT_BUDGET, omittedTurns = 0, tools?: ToolSummaries): FittedHistory {
  checkBudget(budget);
  const paired = pairToolResults(history);
  const total = estimateTokens(paired);
  if (total <= budget.maxTokens && omittedTurns === 0) return { messages: paired, estimatedTokens: total, summarisedToolResults: 0, droppedTurns: 0 };

  const { pinned, turns } = splitTurns(paired);
  if (total <= budget.maxTokens) {
    // Everything read fits; the turns never read (omittedTurns) are still named in the note.
    const messages = [...pinned, summaryNote([], 0, MAX_NOTE_CHARS, omittedTurns), ...turns.flat()];
    return { messages, estimatedTokens: estimateTokens(messages), summarisedToolResults: 0, droppedTurns: omittedTurns };
  }
  const recentFrom = Math.max(0, turns.length - budget.keepRecentTurns);
  const older = turns.slice(0, recentFrom);
  const recent = turns.slice(recentFrom).flat();

  // Keep as many of the latest older turns (with summarised tool results) as fit besides the
  // recent turns and the note on the rest. Turns are summarised newest first and only while
  // they fit, so a long history costs no more than the turns that are sent.
  const tokensOf = (messages: readonly BaseMessage[]) => messages.reduce((sum, message) => sum + messageTokens(message), 0);
  const fixedTokens = TOKENS_PER_REQUEST + tokensOf(pinned) + tokensOf(recent);
  const noteChars = Math.min(MAX_NOTE_CHARS, Math.floor(budget.maxTokens * MAX_NOTE_BUDGET_SHARE * CHARS_PER_TOKEN));
  const noteLines = older.map(describeTurn);
  const noteFor = (dropped: number) => (dropped + omittedTurns === 0 ? undefined : summaryNote(noteLines, dropped, noteChars, omittedTurns));
  const kept: SummarisedTurn[] = [];
  let keptTokens = 0;
  let note = noteFor(older.length);
  while (kept.length < older.length) {
    const candidate = summariseToolResults(older[older.length - kept.length - 1]!, tools);
    const candidateTokens = tokensOf(candidate.messages);
    const candidateNote = noteFor(older.length - kept.length - 1);
    if (fixedTokens + (candidateNote ? messageTokens(candidateNote) : 0) + keptTokens + candidateTokens > budget.maxTokens) break;
    kept.unshift(candidate);
    keptTokens += candidateTokens;
    note = candidateNote;
  }

  const messages = [...pinned, ...(note ? [note] : []), ...kept.flatMap((turn) => turn.messages), ...recent];
  return {
    messages,
    estimatedTokens: estimateTokens(messages),
    summarisedToolResults: kept.reduce((sum, turn) => sum + turn.summarised, 0),
    droppedTurns: older.length - kept.length + omittedTurns,
  };
}

function checkBudget(budget: ContextBudget): void {
  if (!(budget.maxTokens > 0) || !Number.isFinite(budget.maxTokens)) throw new RangeError(`maxTokens must be a positive number, got ${budget.maxTokens}.`);
  if (!Number.isInteger(budget.keepRecentTurns) || budget.keepRecentTurns < 0) {
    throw new RangeError(`keepRecentTurns must be a whole number of turns, 0 or more, got ${budget.keepRecentTurns}.`);
  }
}

// -------------------------------------------------------------------------------------------
// Pairing and turns

/**
 * Every assistant message with tool calls followed by exactly one result per call. A valid
 * history comes back as a copy holding the same messages; a broken one (a stray tool result, a call
 * without a result) is repaired so the provider accepts it.
 */
function pairToolResults(history: readonly BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let index = 0;
  while (index < history.length) {
    const message = history[index]!;
    index += 1;
    if (ToolMessage.isInstance(message)) continue; // not right after its assistant message
    out.push(message);
    if (!AIMessage.isInstance(message)) continue;
    const calls = wireToolCalls(message);
    if (calls.length === 0) continue;
    const results = new Map<string, ToolMessage>();
    while (index < history.length && ToolMessage.isInstance(history[index])) {
      const result = history[index] as ToolMessage;
      if (calls.some((call) => call.id === result.tool_call_id) && !results.has(result.tool_call_id)) results.set(result.tool_call_id, result);
      index += 1;
    }
    for (const call of calls) {
      out.push(
        results.get(call.id) ??
          new ToolMessage({
            tool_call_id: call.id,
            name: call.name,
            status: 'error',
            content: JSON.stringify({ omitted: true, summary: `No result was recorded for this ${call.name || 'tool'} call.` }),
          }),
      );
    }
  }
  return out;
}

/** Leading system messages, then turns: each from a HumanMessage to the next (anything before the first is a turn of its own). */
function splitTurns(messages: readonly BaseMessage[]): { pinned: BaseMessage[]; turns: BaseMessage[][] } {
  let start = 0;
  while (start < messages.length && SystemMessage.isInstance(messages[start])) start += 1;
  const turns: BaseMessage[][] = [];
  for (const message of messages.slice(start)) {
    const current = turns[turns.length - 1];
    if (!current || HumanMessage.isInstance(message)) turns.push([message]);
    else current.push(message);
  }
  return { pinned: messages.slice(0, start), turns };
}

// -------------------------------------------------------------------------------------------
// The note for dropped turns

/** "Q: … → A: …", or what the turn's tools found when it has no written answer. */
function describeTurn(turn: readonly BaseMessage[]): string {
  const question = turn.find((message) => HumanMessage.isInstance(message));
  const answer = [...turn].reverse().find((message) => AIMessage.isInstance(message) && textOf(message.content).trim() !== '');
  const tools = [...new Set(turn.flatMap((message) => (AIMessage.isInstance(message) ? wireToolCalls(message).map((call) => call.name) : [])))];
  const parts: string[] = [];
  if (question) parts.push(`Q: ${cut(textOf(question.content), MAX_NOTE_QUESTION_CHARS)}`);
  if (answer) parts.push(`A: ${cut(textOf(answer.content), MAX_NOTE_ANSWER_CHARS)}`);
  else parts.push(`A: (no written answer${tools.length ? `; tools called: ${tools.join(', ')}` : ''})`);
  return parts.join(' → ');
}

/**
 * One note for the first `count` turns' lines, oldest first; when they do not all fit, the most recent are listed.
 * `omitted` turns before them were never read (only counted): they add to the count, unlisted.
 */
/**
 * The note for earlier turns of which nothing is shown.
 * @example
 * droppedTurnsNote(3); // 'Summary of earlier conversation: 3 earlier turns are not shown; ask the user again about anything from them.'
 */
export function droppedTurnsNote(turns: number): string {
  return `${SUMMARY_NOTE_TITLE}: ${turns} earlier turn${turns === 1 ? ' is' : 's are'} not shown; ask the user again about anything from them.`;
}

function summaryNote(lines: readonly string[], count: number, maxChars: number, omitted = 0): SystemMessage {
  if (count === 0) return new SystemMessage({ id: SUMMARY_NOTE_ID, content: droppedTurnsNote(omitted) });
  const total = count + omitted;
  const header = (unlisted: number) =>
    `${SUMMARY_NOTE_TITLE} (${total} earlier turn${total === 1 ? '' : 's'} not shown in full${unlisted + omitted ? `; the ${unlisted + omitted} oldest not listed` : ''}):`;
  const listed: string[] = [];
  let size = header(count).length;
  for (let index = count - 1; index >= 0; index -= 1) {
    const line = `\n- ${lines[index]!}`;
    if (size + line.length > maxChars) {
      // Always say something about the latest dropped turn, even in a tiny budget.
      if (listed.length === 0) listed.unshift(`\n- ${cut(lines[index]!, Math.max(MIN_NOTE_LINE_CHARS, maxChars - size - 3))}`);
      break;
    }
    listed.unshift(line);
    size += line.length;
  }
  return new SystemMessage({ id: SUMMARY_NOTE_ID, content: `${header(count - listed.length)}${listed.join('')}` });
}
