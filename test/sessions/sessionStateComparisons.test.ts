/**
 * A comparison_id made in a conversation lives in the session store (ToolContext.state), so it
 * survives a restart of the service and works on another instance on the same APP_DB.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createComparisonStore, recallComparison, rememberComparison } from '../../skills/data_analyst/comparisonStore.ts';
import { ConversationService, type ConversationDependencies } from '../../src/conversations/conversationService.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const open = (file: string) => {
  const sessions = openSqliteStore({ path: file, ttlMs: 3_600_000, logger: silentLogger() });
  // Only the session store matters for the session state.
  return { sessions, conversations: new ConversationService({ sessions } as unknown as ConversationDependencies) };
};

describe('comparison ids through the session store', () => {
  it('a comparison kept in a conversation is found after the store is closed and opened again', async () => {
    const file = path.join(temporaryDirectory(), 'app.db');
    const comparison = { args: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' }, result: { top_differences: [], summary: { major_diff: 1 } } };
    const first = open(file);
    const session = await first.sessions.create();
    const processStore = createComparisonStore();
    const id = await rememberComparison({ state: first.conversations.sessionState(session.id) }, comparison, processStore);
    expect(id).toMatch(/^cmp_/);
    // Kept in the session, not in the process.
    expect(() => processStore.recall(id)).toThrow(/unknown or has expired/);
    await first.sessions.close();

    const second = open(file);
    expect(await recallComparison({ state: second.conversations.sessionState(session.id) }, id, createComparisonStore())).toEqual(comparison);
    // Another session does not see it; without a session the process store answers (and does not know it).
    const other = await second.sessions.create();
    await expect(recallComparison({ state: second.conversations.sessionState(other.id) }, id, createComparisonStore())).rejects.toThrow(/unknown or has expired/);
    await expect(recallComparison({}, id, createComparisonStore())).rejects.toThrow(/unknown or has expired/);
    await second.sessions.close();
  });

  it('without a session (POST /tools) comparisons stay in the process store', async () => {
    const store = createComparisonStore();
    const id = await rememberComparison({}, { args: {}, result: { top_differences: [] } }, store);
    expect(store.recall(id).args).toEqual({});
    expect((await recallComparison({}, id, store)).args).toEqual({});
  });
});
