/**
 * explain_difference's breakdown by dimension runs its comparisons side by side, but never more
 * at once than the data layer runs (its workers): more would wait in the pool's line and could be
 * refused as busy. The ranking is the same as one after the other, and when one comparison fails
 * the others are stopped instead of running on after the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillTestKit, ToolError, type DataAccess, type SkillTestKit, type ToolContext } from '../../../src/skills/api.ts';
import { rankDimensions } from '../gapBreakdown.ts';
import skill from '../index.ts';

const SCOPED = { source_a: 'fi_reporting', source_b: 'consolidation_mart', measure: 'amount', filters: { company: '1000', period: '2024012' } };
const CANDIDATES = ['group_account', 'partner_company', 'currency', 'period', 'company'];
const GAP = 110_000;

/** The sample's data access, with the number of queries running at once recorded, and a query that fails on demand. */
function recording(data: DataAccess, concurrency: number, failOnDimension?: string) {
  // Comparisons are counted by their merge (a comparison also looks its filter values up).
  const seen = { running: 0, most: 0, merges: 0 };
  const access: DataAccess = {
    concurrency,
    close: () => data.close(),
    run: async (query, signal) => {
      if (query.kind !== 'merge') return data.run(query, signal);
      seen.merges += 1;
      seen.running += 1;
      seen.most = Math.max(seen.most, seen.running);
      try {
        if (failOnDimension && query.keyNames.includes(failOnDimension)) throw new ToolError('query_failed', 'planted failure');
        // Slow enough that comparisons overlap when they may.
        await new Promise((resolve) => setTimeout(resolve, 20));
        return await data.run(query, signal);
      } finally {
        seen.running -= 1;
      }
    },
  };
  return { access, seen };
}

describe('the breakdown by dimension', () => {
  let kit: SkillTestKit;
  beforeAll(async () => {
    kit = await skillTestKit(skill);
  });
  afterAll(() => kit.close());
  const contextWith = (data: DataAccess): ToolContext => ({ ...kit.context, data });

  it('runs as many comparisons at once as the data layer runs, and ranks as one after the other', async () => {
    const alone = recording(kit.context.data, 1);
    const oneByOne = await rankDimensions(SCOPED, CANDIDATES, GAP, contextWith(alone.access));
    expect(alone.seen.most).toBe(1);
    const two = recording(kit.context.data, 2);
    const sideBySide = await rankDimensions(SCOPED, CANDIDATES, GAP, contextWith(two.access));
    expect(two.seen.most).toBe(2);
    expect(sideBySide).toEqual(oneByOne);
    expect(sideBySide[0]).toMatchObject({ dimension: expect.any(String), values: expect.any(Array) });
  });

  it('answers the first failure and stops the comparisons still running or waiting', async () => {
    const failing = recording(kit.context.data, 2, 'partner_company');
    await expect(rankDimensions(SCOPED, CANDIDATES, GAP, contextWith(failing.access))).rejects.toMatchObject({ code: 'query_failed' });
    // Give a stopped comparison the time to have started a query, were it not stopped.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // group_account and partner_company start together; partner_company fails at once, and at
    // most the next one begins before the failure answers: the last two never run.
    expect(failing.seen.merges).toBeLessThanOrEqual(3);
    expect(failing.seen.running).toBe(0);
  });
});
