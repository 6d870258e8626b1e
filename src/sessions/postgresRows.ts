/**
 * The PostgreSQL session store's rows and how they become the records the API shows: the same
 * records as the SQLite store's (sessionRows.ts), from PostgreSQL's types (timestamptz comes
 * back as a Date, json already parsed, booleans as booleans).
 */
import type { Usage } from '../agent/runLoop.ts';
import type { ToolCallRecord } from '../agent/toolExecution.ts';
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
}

/** The columns of a session, in the order PostgresSessionRow names them. */
export const SESSION_COLUMNS = 'id, title, created_at, updated_at, turns, owner';
/** The columns of a turn, in the order PostgresTurnRow names them. */
export const TURN_COLUMNS = 'seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at';

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
    question: row.question,
    answer: row.answer,
    finished: row.finished,
    stopReason: row.stop_reason,
    iterations: row.iterations,
    toolCalls: row.tool_calls,
    usage: row.usage,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
