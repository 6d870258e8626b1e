/**
 * Follow-up state for tool calls made outside a conversation (POST /tools, MCP): what a tool
 * hands to the next call (a comparison behind a comparison_id) kept per caller in this process,
 * bounded in count and age. Per caller, so one API key never reads another's values; in this
 * process, so such ids work on the instance that made them (conversations keep theirs in the
 * session store, shared by every instance).
 */
import { LRUCache } from 'lru-cache';
import type { SessionState } from '../skills/api.ts';

/** How long a value stays, and how many are kept for all callers together. */
const TTL_MS = 30 * 60 * 1000;
const MAX_VALUES = 2_000;

/**
 * @example
 * const states = new CallerStates();
 * await states.for('a1b2c3').set('comparison:cmp_x', comparison);
 * await states.for('d4e5f6').get('comparison:cmp_x'); // undefined: another caller
 */
export class CallerStates {
  private readonly values = new LRUCache<string, object>({ max: MAX_VALUES, ttl: TTL_MS });

  /** The state of one caller (its key's identity; undefined without API keys: everyone shares one). */
  for(identity: string | undefined): SessionState {
    const prefix = `${identity ?? ''}\0`;
    return {
      get: async (key) => (this.values.get(prefix + key) as { value: unknown } | undefined)?.value,
      set: async (key, value) => {
        // A copy: the caller may change its object after handing it over, as with a store that serialises.
        this.values.set(prefix + key, { value: structuredClone(value) });
      },
    };
  }
}
