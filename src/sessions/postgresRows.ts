/**
 * The PostgreSQL session store's rows and how they become the records the API shows: the same
 * records as the SQLite store's (sessionRows.ts), from PostgreSQL's types (timestamptz comes
 * back as a Date, json already parsed, booleans as booleans).
 */
import type { AnswerFigure, ToolCallRecord, Usage } from './storedTurn.ts';
import type { SessionSummary, TurnRecord } from './sessionRecords.ts';

export interface PostgresSessionRow {
  id: string;
  title: string | null;
  created_at: Date;
  updated_at: Date;
  turns: number;
  owner: string | null;
}

export interface PostgresTurnRow {
  seq: number;
  question: string;
  answer: string;
  finished: boolean;
  stop_reason: string;
  iterations: number;
  tool_calls: ToolCallRecord[];
  usage: Usage;
  started_at: Date;
  finished_at: Date;
  /** The exact question and answer when either holds U+0000 (see textColumns), else null. */
  exact_text: { question: string; answer: string } | null;
  /** The answer's figures with their receipts; null on turns stored without them. */
  figures: AnswerFigure[] | null;
}

/** The columns of a session, in the order PostgresSessionRow names them. */
export const SESSION_COLUMNS = 'id, title, created_at, updated_at, turns, owner';
/** The columns of a turn, in the order PostgresTurnRow names them. */
export const TURN_COLUMNS = 'seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at, exact_text, figures';

/**
 * What a turn's question and answer become in their `text` columns, which cannot hold U+0000
 * (PostgreSQL refuses the whole statement): the text with each U+0000 shown as U+FFFD, and, only
 * when there was one, both texts exactly for the `json` column `exact_text`, which can. Turn
 * records are read from `exact_text` when set (turnOfRow), so nothing the user asked or was
 * answered is lost or changed, as in the SQLite store.
 * @example
 * textColumns('Total\u0000FI?', 'None.'); // { question: 'Total\uFFFDFI?', answer: 'None.', exact: '{"question":"Total\\u0000FI?","answer":"None."}' }
 */
export function textColumns(question: string, answer: string): { question: string; answer: string; exact: string | null } {
  if (!question.includes('\0') && !answer.includes('\0')) return { question, answer, exact: null };
  return { question: question.replaceAll('\0', '\uFFFD'), answer: answer.replaceAll('\0', '\uFFFD'), exact: JSON.stringify({ question, answer }) };
}

/**
 * The SQL condition "the session belongs to `owner`" (no owner: only sessions created without a
 * key, so a key's sessions stay private), adding its parameter to `params`.
 * @example
 * const params: unknown[] = [id];
 * const sql = `SELECT … WHERE id = $1 AND ${ownedBy(owner, params)}`;
 */
export function ownedBy(owner: string | undefined, params: unknown[]): string {
  if (owner === undefined) return 'owner IS NULL';
  params.push(owner);
  return `owner = $${params.length}`;
}

/**
 * A session row as the API shows it.
 * @example
 * summaryOfRow(row); // { id, title, createdAt, updatedAt, turns }
 */
export function summaryOfRow(row: PostgresSessionRow): SessionSummary {
  return { id: row.id, title: row.title, createdAt: row.created_at, updatedAt: row.updated_at, turns: row.turns };
}

/**
 * A turn row as the history API shows it.
 * @example
 * turnOfRow(row).toolCalls; // [{ id, name, args, ok, result, duration_ms }]
 */
export function turnOfRow(row: PostgresTurnRow): TurnRecord {
  return {
    seq: row.seq,
    question: row.exact_text?.question ?? row.question,
    answer: row.exact_text?.answer ?? row.answer,
    finished: row.finished,
    stopReason: row.stop_reason,
    iterations: row.iterations,
    toolCalls: row.tool_calls,
    usage: row.usage,
    ...(row.figures ? { figures: row.figures } : {}),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
