/**
 * A long conversation costs no more per question than a short one: the store reads only the
 * last HISTORY_TURNS_READ turns' messages (and counts the older ones), the context window names
 * the older turns in its summary note, and GET /sessions/{id} can be read a page at a time.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HumanMessage, mapStoredMessagesToChatMessages, SystemMessage } from '@langchain/core/messages';
import { HISTORY_TURNS_READ } from '../../src/agent/constants.ts';
import { fitHistory } from '../../src/agent/contextWindow.ts';
import { textOf } from '../../src/shared/messageText.ts';
import { openSessionStore, type SqliteSessionStore } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleTurn } from './support/turns.ts';

const TURNS = HISTORY_TURNS_READ * 3;
let store: SqliteSessionStore;
let id: string;

beforeAll(() => {
  store = openSessionStore({ path: path.join(temporaryDirectory('analyst-history-window-'), 'app.db'), ttlMs: 0, expiryIntervalMs: 0 });
  id = store.create().id;
  for (let turn = 1; turn <= TURNS; turn += 1) store.appendTurn(id, sampleTurn(`question ${turn}`, turn));
});
afterAll(() => store?.close());

describe('reading the history of a long conversation', () => {
  it(`reads the messages of the last ${HISTORY_TURNS_READ} turns only, and counts the older ones`, () => {
    const { messages: stored, omittedTurns } = store.get(id)!.recentHistory(HISTORY_TURNS_READ);
    const messages = mapStoredMessagesToChatMessages(stored);
    expect(omittedTurns).toBe(TURNS - HISTORY_TURNS_READ);
    const questions = messages.filter((message) => HumanMessage.isInstance(message)).map((message) => textOf(message.content));
    expect(questions).toHaveLength(HISTORY_TURNS_READ);
    expect(questions[0]).toBe(`question ${TURNS - HISTORY_TURNS_READ + 1}`);
    expect(questions.at(-1)).toBe(`question ${TURNS}`);
    // Every stored turn is still there for the history API.
    expect(store.history(id)!.turnRecords).toHaveLength(TURNS);
  });

  it('reads every turn when the caller passes no limit (as getItems() without one)', () => {
    const { messages: stored, omittedTurns } = store.get(id)!.recentHistory();
    const messages = mapStoredMessagesToChatMessages(stored);
    expect(omittedTurns).toBe(0);
    expect(messages.filter((message) => HumanMessage.isInstance(message))).toHaveLength(TURNS);
  });

  it('costs the same to read at 3× the length: only the last turns\' messages are parsed', () => {
    const short = store.create().id;
    for (let turn = 1; turn <= HISTORY_TURNS_READ; turn += 1) store.appendTurn(short, sampleTurn(`q ${turn}`, turn));
    // Rows decoded per read: reading everything and keeping the end would decode 3× as many.
    const decoded = (session: string) => {
      const parse = vi.spyOn(JSON, 'parse');
      try {
        store.get(session)!.recentHistory(HISTORY_TURNS_READ);
        return parse.mock.calls.length;
      } finally {
        parse.mockRestore();
      }
    };
    const atWindow = decoded(short);
    expect(atWindow).toBeGreaterThanOrEqual(HISTORY_TURNS_READ);
    expect(decoded(id)).toBe(atWindow);
  });

  it('names the turns never read in the summary note the model gets', () => {
    const { messages: stored, omittedTurns } = store.get(id)!.recentHistory(HISTORY_TURNS_READ);
    const messages = mapStoredMessagesToChatMessages(stored);
    const fitted = fitHistory(messages, { maxTokens: 100_000, keepRecentTurns: 2 }, omittedTurns);
    const note = fitted.messages[0]!;
    expect(SystemMessage.isInstance(note)).toBe(true);
    expect(textOf(note.content)).toContain(`${omittedTurns} earlier turns are not shown`);
    expect(fitted.droppedTurns).toBe(omittedTurns);

    const tight = fitHistory(messages, { maxTokens: 2_000, keepRecentTurns: 2 }, omittedTurns);
    // Turns dropped from those read and turns never read are counted together.
    expect(tight.droppedTurns).toBeGreaterThan(omittedTurns);
    expect(textOf(tight.messages[0]!.content)).toContain(`Summary of earlier conversation (${tight.droppedTurns} earlier turns not shown in full`);
  });

  it('pages the history: limit and after, with the seq of the next page', () => {
    const first = store.history(id, undefined, { limit: 40 })!;
    expect(first.turnRecords.map((turn) => turn.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(first.nextAfter).toBe(40);
    const last = store.history(id, undefined, { limit: 40, after: TURNS - 10 })!;
    expect(last.turnRecords).toHaveLength(10);
    expect(last.nextAfter).toBeNull();
  });
});
