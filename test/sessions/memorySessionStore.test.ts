import { HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/sessions/memorySessionStore.ts';

describe('MemorySessionStore', () => {
  it('keeps appended turns and forgets sessions idle past the TTL', () => {
    let now = 0;
    const store = new MemorySessionStore({ idleTtlMs: 1000, now: () => now });
    const session = store.create();
    store.append(session.id, [new HumanMessage('hello')]);
    now = 900;
    expect(store.get(session.id)?.messages).toHaveLength(1);
    now = 2000;
    expect(store.get(session.id)).toBeUndefined();
  });

  it('drops the least recently used session beyond the cap', () => {
    let now = 0;
    const store = new MemorySessionStore({ maxSessions: 2, now: () => ++now });
    const first = store.create();
    const second = store.create();
    store.append(first.id, [new HumanMessage('still active')]);
    store.create();
    expect(store.get(second.id)).toBeUndefined();
    expect(store.get(first.id)).toBeDefined();
    expect(store.size).toBe(2);
  });

  it('runs turns of one session one after another, in arrival order, even when one fails', async () => {
    const store = new MemorySessionStore();
    const { id } = store.create();
    const events: string[] = [];
    const slow = store.runExclusive(id, async () => {
      events.push('first start');
      await new Promise((resolve) => setTimeout(resolve, 30));
      events.push('first end');
      throw new Error('first failed');
    });
    const fast = store.runExclusive(id, async () => {
      events.push('second');
      return 2;
    });
    await expect(slow).rejects.toThrow('first failed');
    await expect(fast).resolves.toBe(2);
    expect(events).toEqual(['first start', 'first end', 'second']);
  });
});
