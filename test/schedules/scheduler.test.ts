/**
 * The scheduler (src/schedules/scheduler.ts) on a clock the test moves: a schedule's first tick
 * only sets when it is due; a due slot runs once, with its slot and the skill's own records; a
 * slot missed for days runs once; a run whose instance died is run again once and then recorded
 * as failed; a failing run is recorded with its message; and of several instances sharing a
 * PostgreSQL application database, exactly one runs each slot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.ts';
import type { DataAccess } from '../../src/data/dataAccess.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { Scheduler, type ScheduleState } from '../../src/schedules/scheduler.ts';
import type { Skill } from '../../src/skills/loader.ts';
import { memoryRecords, type SkillRecords } from '../../src/skills/sdk/records.ts';
import { defineSchedule, everyInterval, type ScheduleContext } from '../../src/skills/sdk/schedules.ts';
import { openPostgresStore, type PostgresStore } from '../../src/sessions/postgresStore.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { scratchDatabase } from '../sessions/support/postgresDatabase.ts';

const HOUR = 3_600_000;
const start = Date.parse('2026-11-26T09:30:00Z');

/** A skill `close` with one hourly schedule whose runs the test sees (and may make fail or hang). */
function closeSkill(behaviour: { fail?: string; hang?: boolean } = {}) {
  const runs: { due: string; attempt: number }[] = [];
  const schedule = defineSchedule({
    name: 'hourly_checks',
    next: everyInterval(HOUR),
    timeoutMs: 5 * 60_000,
    async run({ due, attempt, records }: ScheduleContext) {
      runs.push({ due: due.toISOString(), attempt });
      await records.put('runs', due.toISOString(), { attempt });
      if (behaviour.fail) throw new Error(behaviour.fail);
      if (behaviour.hang) await new Promise(() => undefined);
    },
  });
  const skill: Skill = { name: 'close', description: 'test', version: '0.1.0', instructions: '', directory: '(test)', tools: [], schedules: [schedule] };
  return { skill, runs };
}

/** Contexts' data and catalog: the schedules here do not read data. */
const unused = { catalog: {} as Catalog, data: {} as DataAccess, logger: silentLogger() };

function scheduler(skill: Skill, states: SkillRecords, own: SkillRecords, clock: { now: number }, instanceId = 'instance-1') {
  return new Scheduler({ skills: () => [skill], states, recordsFor: () => own, ...unused, now: () => clock.now, instanceId });
}

describe('Scheduler', () => {
  it("sets the first due time, runs a due slot once with the skill's records, and counts the next from it", async () => {
    const { skill, runs } = closeSkill();
    const [states, own] = [memoryRecords(), memoryRecords()];
    const clock = { now: start };
    const instance = scheduler(skill, states, own, clock);
    await instance.tick();
    expect(runs).toEqual([]);
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value.nextDue).toBe('2026-11-26T10:00:00.000Z');
    clock.now = Date.parse('2026-11-26T10:00:05Z');
    await instance.tick();
    await instance.tick();
    expect(runs).toEqual([{ due: '2026-11-26T10:00:00.000Z', attempt: 1 }]);
    expect((await own.get('runs', '2026-11-26T10:00:00.000Z'))?.value).toEqual({ attempt: 1 });
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value).toMatchObject({ nextDue: '2026-11-26T11:00:00.000Z', last: { slot: '2026-11-26T10:00:00.000Z', status: 'ok', attempt: 1 } });
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value.running).toBeUndefined();
  });

  it('runs a slot missed for days once, then counts from now', async () => {
    const { skill, runs } = closeSkill();
    const states = memoryRecords();
    const clock = { now: start };
    const instance = scheduler(skill, states, memoryRecords(), clock);
    await instance.tick();
    clock.now = start + 3 * 24 * HOUR;
    await instance.tick();
    await instance.tick();
    expect(runs).toHaveLength(1);
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value.nextDue).toBe('2026-11-29T10:00:00.000Z');
  });

  it('records a failing run with its message and moves on to the next slot', async () => {
    const { skill } = closeSkill({ fail: 'BPC is not reachable' });
    const states = memoryRecords();
    const clock = { now: start };
    const instance = scheduler(skill, states, memoryRecords(), clock);
    await instance.tick();
    clock.now = Date.parse('2026-11-26T10:00:01Z');
    await instance.tick();
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value).toMatchObject({ nextDue: '2026-11-26T11:00:00.000Z', last: { status: 'error', message: 'BPC is not reachable' } });
  });

  it('runs a slot again when the instance running it stopped, once, then records it as failed', async () => {
    const { skill: hanging, runs: firstRuns } = closeSkill({ hang: true });
    const states = memoryRecords();
    const clock = { now: start };
    const dying = scheduler(hanging, states, memoryRecords(), clock, 'dying');
    await dying.tick();
    clock.now = Date.parse('2026-11-26T10:00:01Z');
    void dying.tick(); // never finishes: its instance is gone as far as the others know
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(firstRuns).toHaveLength(1);
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value.running).toMatchObject({ holder: 'dying', attempt: 1 });

    const { skill: hangingAgain, runs } = closeSkill({ hang: true });
    const other = scheduler(hangingAgain, states, memoryRecords(), clock, 'other');
    await Promise.race([other.tick(), new Promise((resolve) => setTimeout(resolve, 10))]);
    expect(runs).toEqual([]); // the lease still holds
    clock.now += 5 * 60_000 + 1;
    void other.tick();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toEqual([{ due: '2026-11-26T10:00:00.000Z', attempt: 2 }]);

    const { skill: healthy, runs: lastRuns } = closeSkill();
    const third = scheduler(healthy, states, memoryRecords(), clock, 'third');
    clock.now += 5 * 60_000 + 1;
    await third.tick();
    expect(lastRuns).toEqual([]);
    expect((await states.get<ScheduleState>('close', 'hourly_checks'))?.value).toMatchObject({ last: { slot: '2026-11-26T10:00:00.000Z', status: 'error', attempt: 2 }, nextDue: '2026-11-26T11:00:00.000Z' });
    await Promise.all([dying.stop(), other.stop()].map((stopping) => Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, 50))])));
  });
});

describe('Scheduler across instances sharing PostgreSQL', () => {
  const stores: PostgresStore[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('runs each due slot exactly once among four instances ticking at the same moment', async () => {
    const database = await scratchDatabase((await postgresUrls()).adminUrl, 'schedules');
    cleanups.push(database.drop);
    const clock = { now: start };
    const runs: string[] = [];
    const instances = await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (name) => {
        const store = await openPostgresStore({ url: database.url, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
        stores.push(store);
        const schedule = defineSchedule({ name: 'hourly_checks', next: everyInterval(HOUR), run: ({ due }) => void runs.push(`${name} ${due.toISOString()}`) });
        const skill: Skill = { name: 'close', description: 'test', version: '0.1.0', instructions: '', directory: '(test)', tools: [], schedules: [schedule] };
        return new Scheduler({ skills: () => [skill], states: store.skillRecords('schedules/'), recordsFor: (owner) => store.skillRecords(owner), ...unused, now: () => clock.now, instanceId: name });
      }),
    );
    await Promise.all(instances.map((instance) => instance.tick()));
    for (const hour of ['10', '11', '12']) {
      clock.now = Date.parse(`2026-11-26T${hour}:00:02Z`);
      await Promise.all(instances.map((instance) => instance.tick()));
    }
    expect(runs.map((run) => run.split(' ')[1])).toEqual(['2026-11-26T10:00:00.000Z', '2026-11-26T11:00:00.000Z', '2026-11-26T12:00:00.000Z']);
  });
});
