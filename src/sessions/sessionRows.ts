/**
 * The session store's SQL: its prepared statements, the rows they return, and how rows become
 * the records the API shows. The SQL sits next to the row types it returns so the two change
 * together; the schema itself is in appDatabase.ts.
 */
import type Database from 'better-sqlite3';
import type { AnswerFigure, ToolCallRecord, Usage } from './storedTurn.ts';
import type { SessionSummary, TurnRecord } from './sessionRecords.ts';

export interface SessionRow {
  id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  turns: number;
  /** The identity of the API key that created the session; null without API keys. */
  owner: string | null;
}

interface TurnRow {
  seq: number;
  question: string;
  answer: string;
  finished: number;
  stop_reason: string;
  iterations: number;
  tool_calls: string;
  usage: string;
  figures: string | null;
  started_at: string;
  finished_at: string;
}

/** Statements are prepared once, when the store opens, and reused for every call. */
export function prepareSessionStatements(database: Database.Database) {
  return {
    insertSession: database.prepare('INSERT INTO sessions (id, title, created_at, updated_at, turns, owner) VALUES (?, NULL, ?, ?, 0, ?)'),
    session: database.prepare<[string], SessionRow>('SELECT id, title, created_at, updated_at, turns, owner FROM sessions WHERE id = ?'),
    /** The messages of the turns after the first `?` (turn_seq), so a long conversation costs no more to read than its last turns. */
    recentMessages: database.prepare<[string, number], { message: string }>('SELECT message FROM messages WHERE session_id = ? AND turn_seq > ? ORDER BY seq'),
    lastMessageSeq: database.prepare<[string], { seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM messages WHERE session_id = ?'),
    insertTurn: database.prepare(
      `INSERT INTO turns (session_id, seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, figures, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertMessage: database.prepare('INSERT INTO messages (session_id, seq, turn_seq, message) VALUES (?, ?, ?, ?)'),
    touchSession: database.prepare('UPDATE sessions SET updated_at = ?, turns = ?, title = coalesce(title, ?) WHERE id = ?'),
    turns: database.prepare<[string], TurnRow>(
      `SELECT seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, figures, started_at, finished_at
       FROM turns WHERE session_id = ? ORDER BY seq`,
    ),
    /** One page of turns: after a seq, at most a count (GET /sessions/{id}?limit=&after=). */
    turnsPage: database.prepare<[string, number, number], TurnRow>(
      `SELECT seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, figures, started_at, finished_at
       FROM turns WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    /** Pages without an owner (no API keys): only sessions created without a key; a key's sessions stay private. */
    firstPage: database.prepare<[string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns, owner FROM sessions
       WHERE owner IS NULL AND updated_at >= ? ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    nextPage: database.prepare<[string, string, string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns, owner FROM sessions
       WHERE owner IS NULL AND updated_at >= ? AND (updated_at, id) < (?, ?)
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    /** The same pages, only one owner's sessions. */
    firstOwnedPage: database.prepare<[string, string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns, owner FROM sessions
       WHERE owner = ? AND updated_at >= ? ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    nextOwnedPage: database.prepare<[string, string, string, string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns, owner FROM sessions
       WHERE owner = ? AND updated_at >= ? AND (updated_at, id) < (?, ?)
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    /** Saved only while the session exists (no row otherwise): `changes` 0 means it is gone. */
    upsertArtifact: database.prepare<[{ id: string; key: string; value: string; at: string }]>(
      `INSERT INTO session_artifacts (session_id, key, value, updated_at) SELECT @id, @key, @value, @at WHERE EXISTS (SELECT 1 FROM sessions WHERE id = @id)
       ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    ),
    artifact: database.prepare<[string, string], { value: string }>('SELECT value FROM session_artifacts WHERE session_id = ? AND key = ?'),
    deleteSession: database.prepare('DELETE FROM sessions WHERE id = ?'),
    deleteIdle: database.prepare(`DELETE FROM sessions WHERE updated_at < ? AND id NOT IN (SELECT value FROM json_each(?))`),
  };
}

export type SessionStatements = ReturnType<typeof prepareSessionStatements>;

/** Timestamps are stored as ISO text (so they sort as strings); the API hands out Dates. */
export function summaryOf(row: SessionRow): SessionSummary {
  return { id: row.id, title: row.title, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at), turns: row.turns };
}

/** Tool calls and usage are stored as JSON text: they are only ever read back whole. */
export function turnOf(row: TurnRow): TurnRecord {
  return {
    seq: row.seq,
    question: row.question,
    answer: row.answer,
    finished: row.finished === 1,
    stopReason: row.stop_reason,
    iterations: row.iterations,
    toolCalls: JSON.parse(row.tool_calls) as ToolCallRecord[],
    usage: JSON.parse(row.usage) as Usage,
    ...(row.figures ? { figures: JSON.parse(row.figures) as AnswerFigure[] } : {}),
    startedAt: new Date(row.started_at),
    finishedAt: new Date(row.finished_at),
  };
}
