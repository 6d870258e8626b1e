/**
 * Runs the schedules skills declare (skills/sdk/schedules.ts). Every instance ticks; what makes
 * a slot run once across instances is the schedule's state record in the application database
 * (skill records, sessions/*SkillRecords.ts): an instance runs a due slot only after a write
 * naming the version it read succeeded, and of two instances writing one version exactly one
 * succeeds. The record says when the schedule is next due, who runs it until when (a lease),
 * and how its last run went.
 *
 * - A slot missed while no instance ran is run once, and the next slot is counted from now.
 * - A run whose lease expired (its instance died, or it outran `timeoutMs`) is run again by the
 *   next tick, once; after that it is recorded as failed and the schedule moves on.
 * - The first tick after a schedule appears only sets when it is next due.
 */
import { randomUUID } from 'node:crypto';
import type { Catalog } from '../catalog/catalog.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import { RecordConflictError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import type { Skill } from '../skills/loader.ts';
import type { SkillRecord, SkillRecords } from '../skills/sdk/records.ts';
import type { ScheduleDefinition } from '../skills/sdk/schedules.ts';
import type { SkillNotification, ToolCallResult, ToolCaller } from '../skills/sdk/tools.ts';

/** A schedule's state, kept as a record (collection: the skill, id: the schedule). */
export interface ScheduleState {
  /** ISO time the next slot is due. */
  nextDue: string;
  /** The run in progress: who, for which slot, which attempt, until when its lease holds. */
  running?: { holder: string; slot: string; attempt: number; until: string };
  /** How the last finished run went. */
  last?: { slot: string; status: 'ok' | 'error'; message?: string; finishedAt: string; attempt: number };
}

export interface SchedulerOptions {
  /** The skills whose schedules run (read at every tick: a reload changes them). */
  skills(): readonly Skill[];
  /** Where schedule states are kept: one namespace for the scheduler itself. */
  states: SkillRecords;
  /** Each skill's own records, as its tools see them. */
  recordsFor(skill: string): SkillRecords;
  catalog: Catalog;
  data: DataAccess;
  logger: Logger;
  /** Runs a tool as `caller` (undefined: every data visible); the service passes the conversations' runTool. */
  runTool?: (name: string, input: unknown, options: { caller?: ToolCaller | undefined; signal: AbortSignal; logger: Logger }) => Promise<ToolCallResult>;
  /** Sends a skill's notifications (the service's outbox); absent: nothing is sent. */
  notify?: (skill: string, notification: SkillNotification) => Promise<{ queued: boolean }>;
  now?: () => number;
  /** This instance's name in leases (default a random id). */
  instanceId?: string;
}

/** Runs at most twice in all: a second death of the same slot is recorded as a failure. */
const MAX_ATTEMPTS = 2;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * The service's scheduler.
 * @example
 * const scheduler = new Scheduler({ skills: () => registry.skills, states: store.skillRecords('schedules/'), recordsFor: (skill) => store.skillRecords(skill), catalog, data, logger });
 * scheduler.start(30_000); // tick every 30 s
 */
export class Scheduler {
  private readonly now: () => number;
  readonly instanceId: string;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? Date.now;
    this.instanceId = options.instanceId ?? randomUUID();
  }

  /** Ticks every `intervalMs` (the timer does not keep the process alive). */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops ticking, aborts runs in progress and waits for the current tick. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.ticking;
  }

  /** Looks at every schedule once and runs the due ones (one tick at a time). @returns when it is done. */
  tick(): Promise<void> {
    this.ticking ??= this.tickOnce().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async tickOnce(): Promise<void> {
    for (const skill of this.options.skills()) {
      for (const schedule of skill.schedules ?? []) {
        if (this.stopping.signal.aborted) return;
        try {
          await this.consider(skill.name, schedule);
        } catch (error) {
          this.options.logger.error({ err: error, skill: skill.name, schedule: schedule.name }, 'the scheduler could not look at a schedule');
        }
      }
    }
  }

  private async consider(skill: string, schedule: ScheduleDefinition): Promise<void> {
    const { states } = this.options;
    const now = this.now();
    const record = await states.get<ScheduleState>(skill, schedule.name);
    if (!record) {
      await this.write(skill, schedule.name, { nextDue: schedule.next(new Date(now)).toISOString() }, 0);
      return;
    }
    const state = record.value;
    let slot: string;
    let attempt: number;
    if (state.running) {
      if (Date.parse(state.running.until) > now) return;
      // Its instance stopped (or it outran its time): run the slot again, once.
      if (state.running.attempt >= MAX_ATTEMPTS) {
        const message = `the run did not finish in ${MAX_ATTEMPTS} attempts (each instance running it stopped or it took longer than ${schedule.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms)`;
        await this.finish(skill, schedule, record, { slot: state.running.slot, status: 'error', message, attempt: state.running.attempt });
        return;
      }
      slot = state.running.slot;
      attempt = state.running.attempt + 1;
    } else {
      if (Date.parse(state.nextDue) > now) return;
      slot = state.nextDue;
      attempt = 1;
    }
    const timeoutMs = schedule.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const claimed = await this.write(skill, schedule.name, { ...state, running: { holder: this.instanceId, slot, attempt, until: new Date(now + timeoutMs).toISOString() } }, record.version);
    if (!claimed) return;
    await this.run(skill, schedule, claimed, slot, attempt, timeoutMs);
  }

  private async run(skill: string, schedule: ScheduleDefinition, claimed: SkillRecord<ScheduleState>, slot: string, attempt: number, timeoutMs: number): Promise<void> {
    const logger = this.options.logger.child({ skill, schedule: schedule.name, slot, attempt });
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(timeoutMs)]);
    let outcome: { status: 'ok' | 'error'; message?: string };
    try {
      const { runTool, notify } = this.options;
      await schedule.run({
        catalog: this.options.catalog,
        data: this.options.data,
        logger,
        records: this.options.recordsFor(skill),
        signal,
        due: new Date(slot),
        now: new Date(this.now()),
        attempt,
        callTool: (name, input, caller) =>
          runTool ? runTool(name, input, { caller, signal, logger }) : Promise.resolve({ ok: false, error: { code: 'unavailable', message: 'This service runs no tools from schedules.' } }),
        notify: (notification) => (notify ? notify(skill, notification) : Promise.resolve({ queued: false })),
      });
      outcome = { status: 'ok' };
    } catch (error) {
      logger.warn({ err: error }, 'a scheduled run failed');
      outcome = { status: 'error', message: (error as Error)?.message ?? String(error) };
    }
    // Stopping mid-run: leave the lease to expire, so another instance (or the next start) runs the slot again.
    if (this.stopping.signal.aborted) return;
    await this.finish(skill, schedule, claimed, { slot, attempt, ...outcome });
  }

  /** Records how a slot went and when the schedule is next due (counted from now: missed slots run once). */
  private async finish(skill: string, schedule: ScheduleDefinition, record: SkillRecord<ScheduleState>, last: { slot: string; status: 'ok' | 'error'; message?: string; attempt: number }): Promise<void> {
    const now = this.now();
    const after = Math.max(now, Date.parse(last.slot));
    const state: ScheduleState = { nextDue: schedule.next(new Date(after)).toISOString(), last: { ...last, finishedAt: new Date(now).toISOString() } };
    if (!(await this.write(skill, schedule.name, state, record.version))) {
      this.options.logger.warn({ skill, schedule: schedule.name, slot: last.slot }, 'a scheduled run finished after its lease was taken over; its outcome was not recorded');
    }
  }

  /** Writes the state if it is still at `version`; undefined when another instance wrote first. */
  private async write(skill: string, schedule: string, state: ScheduleState, version: number): Promise<SkillRecord<ScheduleState> | undefined> {
    try {
      return await this.options.states.put(skill, schedule, state, { version });
    } catch (error) {
      if (RecordConflictError.isInstance(error)) return undefined;
      throw error;
    }
  }
}
