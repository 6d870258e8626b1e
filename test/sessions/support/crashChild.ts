/**
 * Child process of the crash test: opens the store at argv[2], appends turns to one session
 * without pause and prints "ok <session id> <seq>" after each append returns. The test kills
 * it with SIGKILL; every acknowledged turn must be in the file afterwards.
 */
import { SqliteSessionStore } from '../../../src/sessions/sqliteSessionStore.ts';
import { sampleTurn } from './turns.ts';

const databasePath = process.argv[2];
const maxTurns = Number(process.argv[3] ?? 1);
if (!databasePath) throw new Error('usage: crashChild.ts <app.db> [turns]');
const store = new SqliteSessionStore({ path: databasePath, ttlMs: 0, expiryIntervalMs: 0 });
const session = store.create();
for (let seq = 1; seq <= maxTurns; seq += 1) {
  if (!store.appendTurn(session.id, sampleTurn(`question ${seq}`, seq))) throw new Error('append refused');
  process.stdout.write(`ok ${session.id} ${seq}\n`);
}
// Stay alive (the store open, nothing closed) until the test kills us.
setInterval(() => undefined, 60_000);
