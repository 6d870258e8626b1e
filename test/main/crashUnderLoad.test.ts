/**
 * SIGKILL under load loses no acknowledged turn: concurrent conversations run against the real
 * service (offline model), the process is killed mid-load, restarted on the same APP_DB, and
 * every turn whose HTTP 200 reached a client is in GET /sessions/{id}, at its place.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startServer, type ServerProcess } from './support/serverProcess.ts';

const QUESTIONS = [
  'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024',
  'and for company 2000?',
  'Which sources are available?',
  'Compare fi_reporting with bpc_reporting for company 3000 in period 2024010',
];
const CONNECTIONS = 12;
const TURNS_PER_SESSION = 5;
const LOAD_MS = 3_000;

interface Acknowledged {
  sessionId: string;
  /** 1-based place of the turn in its conversation. */
  seq: number;
  question: string;
}

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

describe('SIGKILL under load', () => {
  it('keeps every acknowledged turn across a kill and a restart', async () => {
    const appDb = path.join(temporaryDirectory('main-crash-'), 'app.db');
    const first = await startServer({ APP_DB: appDb });
    servers.push(first);
    const acknowledged: Acknowledged[] = [];
    let killed = false;
    let failuresBeforeKill = 0;

    // Each client runs conversations back to back: a new session, then follow-ups in it.
    const client = async (index: number) => {
      while (!killed) {
        let sessionId: string | undefined;
        for (let seq = 1; seq <= TURNS_PER_SESSION && !killed; seq++) {
          const question = QUESTIONS[(index + seq) % QUESTIONS.length]!;
          try {
            const response = await fetch(`${first.url}/chat`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(sessionId ? { message: question, session_id: sessionId } : { message: question }),
            });
            const text = await response.text();
            if (response.status !== 200) {
              if (!killed) failuresBeforeKill++;
              break;
            }
            sessionId = (JSON.parse(text) as { session_id: string }).session_id;
            acknowledged.push({ sessionId, seq, question });
          } catch {
            if (!killed) failuresBeforeKill++;
            return; // the server is gone
          }
        }
      }
    };
    const clients = Array.from({ length: CONNECTIONS }, (_unused, index) => client(index));
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
    const acknowledgedAtKill = acknowledged.length;
    first.child.kill('SIGKILL');
    killed = true;
    expect((await first.exited).signal).toBe('SIGKILL');
    await Promise.all(clients);
    expect(failuresBeforeKill).toBe(0);
    expect(acknowledgedAtKill).toBeGreaterThan(CONNECTIONS);
    // A response that was in flight at the kill may have reached its client too: that counts.
    const all = [...acknowledged];

    const second = await startServer({ APP_DB: appDb });
    servers.push(second);
    const sessions = new Map<string, Acknowledged[]>();
    for (const turn of all) sessions.set(turn.sessionId, [...(sessions.get(turn.sessionId) ?? []), turn]);
    for (const [sessionId, turns] of sessions) {
      const response = await fetch(`${second.url}/sessions/${sessionId}`);
      expect(response.status, `session ${sessionId}`).toBe(200);
      const stored = (await response.json()) as { turns: { question: string; answer: string }[] };
      for (const turn of turns) {
        expect(stored.turns[turn.seq - 1]?.question, `turn ${turn.seq} of session ${sessionId}`).toBe(turn.question);
        expect(stored.turns[turn.seq - 1]?.answer.length).toBeGreaterThan(0);
      }
    }
    // The restarted service carries on: a follow-up in a recovered conversation works.
    const [someSession] = sessions.keys();
    const followUp = await fetch(`${second.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Which sources are available?', session_id: someSession }),
    });
    expect(followUp.status).toBe(200);
  }, 30_000);
});
