/**
 * An acknowledged turn is never lost: a child process appends turns and is killed with SIGKILL
 * right after an append returned; reopening the file finds every acknowledged turn, whole.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapStoredMessagesToChatMessages } from '@langchain/core/messages';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleTurn } from './support/turns.ts';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support', 'crashChild.ts');

/** Runs the child until it has acknowledged `acks` turns, then kills it; returns the session id and the last acknowledged seq. */
async function appendThenKill(file: string, turns: number, acks: number): Promise<{ id: string; acknowledged: number; signal: NodeJS.Signals | null }> {
  const process_ = spawn(process.execPath, ['--import', 'tsx', child, file, String(turns)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  process_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => process_.on('exit', (_code, signal) => resolve(signal)));
  let buffered = '';
  let id = '';
  let acknowledged = 0;
  await new Promise<void>((resolve, reject) => {
    process_.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const match = /^ok (\S+) (\d+)$/.exec(line);
        if (!match) continue;
        id = match[1]!;
        acknowledged = Number(match[2]);
        if (acknowledged >= acks) {
          process_.kill('SIGKILL');
          resolve();
        }
      }
    });
    process_.on('exit', () => reject(new Error(`the child exited before acknowledging ${acks} turns: ${stderr}`)));
  });
  return { id, acknowledged, signal: await exited };
}

describe('crash safety', () => {
  it('keeps a turn acknowledged just before the process was killed', async () => {
    const file = path.join(temporaryDirectory('sessions-crash-'), 'app.db');
    const { id, acknowledged, signal } = await appendThenKill(file, 1, 1);
    expect(signal).toBe('SIGKILL');
    expect(acknowledged).toBe(1);
    const store = new SqliteSessionStore({ path: file, ttlMs: 0, expiryIntervalMs: 0 });
    try {
      const history = store.history(id)!;
      expect(history.turnRecords.map((t) => t.question)).toEqual(['question 1']);
      expect(mapStoredMessagesToChatMessages(store.get(id)!.messages)).toEqual(sampleTurn('question 1', 1).messages);
    } finally {
      store.close();
    }
  });

  it('keeps every acknowledged turn, whole, when killed in the middle of a stream of appends', async () => {
    const file = path.join(temporaryDirectory('sessions-crash-'), 'app.db');
    const { id, acknowledged, signal } = await appendThenKill(file, 100_000, 20);
    expect(signal).toBe('SIGKILL');
    const store = new SqliteSessionStore({ path: file, ttlMs: 0, expiryIntervalMs: 0 });
    try {
      const session = store.get(id)!;
      const turns = store.history(id)!.turnRecords;
      expect(turns.length).toBeGreaterThanOrEqual(acknowledged);
      expect(session.turns).toBe(turns.length);
      expect(turns.map((t) => t.seq)).toEqual(turns.map((_t, index) => index + 1));
      expect(session.messages).toHaveLength(4 * turns.length); // no torn turn
    } finally {
      store.close();
    }
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();
  });
});
