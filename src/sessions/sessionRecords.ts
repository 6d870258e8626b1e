/**
 * The shapes a stored conversation takes outside the database: a turn as /chat hands it to the
 * store, and sessions and turns as the history API shows them. Kept apart from the store so
 * the routes and tests that only need the shapes do not depend on SQLite.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { AnswerFigure, StopReason, ToolCallRecord, Usage } from './storedTurn.ts';

/** Titles are the first question, cut to this many characters. */
const TITLE_CHARS = 80;

/** What answering one question produced: the agent's run result declares these, the store keeps them. */
export interface TurnOutcome {
  /** This turn's messages (question, assistant and tool messages, final answer). */
  messages: BaseMessage[];
  answer: string;
  finished: boolean;
  stopReason: StopReason;
  /** Model calls made for this question. */
  iterations: number;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** The answer's figures with their receipts; absent for a turn that ended without an answer. */
  figures?: AnswerFigure[] | undefined;
}

/** One answered question, as /chat hands it over. */
export interface TurnInput extends TurnOutcome {
  question: string;
  startedAt: Date;
  finishedAt: Date;
}

/** One stored turn, as the history API shows it. */
export interface TurnRecord {
  seq: number;
  question: string;
  answer: string;
  finished: boolean;
  stopReason: string;
  iterations: number;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** The answer's figures with their receipts, as /chat returned them; absent on turns stored without them. */
  figures?: AnswerFigure[];
  startedAt: Date;
  finishedAt: Date;
}

export interface SessionSummary {
  id: string;
  title: string | null;
  createdAt: Date;
  updatedAt: Date;
  turns: number;
}

export interface SessionHistory extends SessionSummary {
  turnRecords: TurnRecord[];
  /** When read a page at a time: the seq to pass as `after` for the next page, null on the last. */
  nextAfter?: number | null;
}

/**
 * The first question on one line, cut to TITLE_CHARS characters (never inside a character).
 * Control characters count as spaces: a title is for display, and both stores keep it alike
 * (PostgreSQL text cannot hold U+0000).
 * @example
 * titleOf('Total\u0000FI\nfor 2024?'); // 'Total FI for 2024?'
 */
export function titleOf(question: string): string {
  const line = question.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  const chars = [...line];
  return chars.length <= TITLE_CHARS ? line : `${chars.slice(0, TITLE_CHARS - 1).join('').trimEnd()}…`;
}
