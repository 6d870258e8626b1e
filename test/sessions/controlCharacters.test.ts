/**
 * Same input, same answer, whatever the conversation store: a question, answer or tool result
 * holding control characters (U+0000 included, which PostgreSQL's text cannot hold) is kept
 * exactly by the SQLite file and by PostgreSQL, through the real /chat and /sessions routes and
 * through the store itself; titles show control characters as spaces on both.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import type { SessionStore } from '../../src/sessions/sessionStore.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { listeningServices } from '../support/listeningService.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { scratchDatabase } from './support/postgresDatabase.ts';
import { sampleTurn } from './support/turns.ts';

const cleanups: (() => Promise<void>)[] = [];
const services = listeningServices();
afterEach(async () => {
  await services.closeAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An empty PostgreSQL application database, dropped after the test. */
async function postgresAppDb(): Promise<string> {
  const database = await scratchDatabase((await postgresUrls()).adminUrl, 'controls');
  cleanups.push(database.drop);
  return database.url;
}

const stores: { name: string; appDb: () => Promise<string> }[] = [
  { name: 'SQLite', appDb: async () => path.join(temporaryDirectory('controls-'), 'app.db') },
  { name: 'PostgreSQL', appDb: postgresAppDb },
];

async function open(appDb: string): Promise<SessionStore> {
  const options = { ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 };
  const store = appDb.startsWith('postgres') ? await openPostgresStore({ url: appDb, ...options }) : await openSqliteStore({ path: appDb, ...options });
  cleanups.push(() => store.close());
  return store;
}

const QUESTION = 'What is the total amount in fi_reporting for company 1000\u0000 in December 2024?\u0007\u001b[31m';

describe.each(stores)('control characters on the $name store', ({ appDb }) => {
  it('answers a /chat question holding U+0000 with 200 and gives it back exactly in the history', async () => {
    const { url } = await services.start({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', APP_DB: await appDb() });
    const response = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: QUESTION }) });
    expect(response.status).toBe(200);
    const { session_id: sessionId } = (await response.json()) as { session_id: string };

    const followUp = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'and for company\u0000 2000?', session_id: sessionId }) });
    expect(followUp.status).toBe(200);

    const history = (await (await fetch(`${url}/sessions/${sessionId}`)).json()) as { title: string; turns: { question: string }[] };
    expect(history.turns.map((turn) => turn.question)).toEqual([QUESTION, 'and for company\u0000 2000?']);
    expect(history.title).toBe('What is the total amount in fi_reporting for company 1000 in December 2024? [31m');
    const listed = (await (await fetch(`${url}/sessions`)).json()) as { sessions: { title: string }[] };
    expect(listed.sessions.map((session) => session.title)).toEqual([history.title]);
  });

  it('keeps answers, tool results and model messages holding U+0000 exactly, across a reopen', async () => {
    const where = await appDb();
    const store = await open(where);
    const session = await store.create();
    const turn = sampleTurn('Which texts have a\u0000NUL?');
    turn.answer = 'The text is "a\u0000b" \u0001.';
    turn.toolCalls[0]!.result = { rows: [{ text: 'a\u0000b' }], row_count: 1 };
    turn.messages[2]!.content = JSON.stringify(turn.toolCalls[0]!.result);
    turn.messages[3]!.content = turn.answer;
    expect(await store.appendTurn(session.id, turn)).toBe(true);
    await store.close();

    const reopened = await open(where);
    const [record] = (await reopened.history(session.id))!.turnRecords;
    expect(record).toMatchObject({ question: turn.question, answer: turn.answer, toolCalls: [{ result: { rows: [{ text: 'a\u0000b' }] } }] });
    expect((await reopened.recentHistory(session.id)).messages.map((message) => message.content)).toEqual(turn.messages.map((message) => message.content));
  });
});

describe('the PostgreSQL store on a database created before exact_text', () => {
  it('adds the column on open and keeps the turns stored before', async () => {
    const url = await postgresAppDb();
    const first = await open(url);
    const session = await first.create();
    await first.appendTurn(session.id, sampleTurn('Total FI?'));
    await first.close();
    await withPostgres(url, (client) => client.query('ALTER TABLE turns DROP COLUMN exact_text'));

    const reopened = await open(url);
    expect(await reopened.appendTurn(session.id, sampleTurn('Total\u0000FI?', 2))).toBe(true);
    expect((await reopened.history(session.id))!.turnRecords.map((turn) => turn.question)).toEqual(['Total FI?', 'Total\u0000FI?']);
  });
});
