/**
 * The month-end close on the running service, with real HTTP, a real SQLite copy of the sample
 * and a real webhook receiver: a check saved with save_check runs on the scheduler's clock,
 * ties, breaks when a line is planted in the data, and ties again when it is gone; the receiver
 * gets one signed message per change of status; an open difference is carried forward with its
 * age; a sign-off re-opens when a later run of its period shows other figures; a scoped key
 * neither sees nor runs another scope's checks, and only a key allowed to sign can sign.
 */
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startReceiver, verified, type Receiver } from '../notifications/support/receiver.ts';
import { until } from '../support/until.ts';

type Json = Record<string, any>;

const KEYS = { controller: 'controller-key-0123456789', analyst: 'analyst-key-0123456789', uk: 'uk-analyst-key-0123456789', us: 'us-analyst-key-0123456789' };
const SECRET = 'close-webhook-secret-0123456789';
let service: Service;
let receiver: Receiver;
let dataFile: string;
let clock = Date.now();

beforeAll(async () => {
  const directory = temporaryDirectory('month-end-close-');
  dataFile = path.join(directory, 'data.db');
  copyFileSync(path.join(projectRoot, 'data/sample.db'), dataFile);
  writeFileSync(
    path.join(directory, 'keys.yaml'),
    `keys:\n  - name: controller\n    key_env: CONTROLLER_KEY\n    permissions: [sign_off]\n  - name: analyst\n    key_env: ANALYST_KEY\n  - name: uk-analyst\n    key_env: UK_KEY\n    scopes: { company: ["3000"] }\n  - name: us-analyst\n    key_env: US_KEY\n    scopes: { company: ["2000"] }\n`,
  );
  receiver = await startReceiver();
  const config = loadConfig({
    DATA_DB: dataFile,
    APP_DB: path.join(directory, 'app.db'),
    API_KEYS_FILE: path.join(directory, 'keys.yaml'),
    CONTROLLER_KEY: KEYS.controller,
    ANALYST_KEY: KEYS.analyst,
    UK_KEY: KEYS.uk,
    US_KEY: KEYS.us,
    NOTIFY_WEBHOOK_URL: receiver.url,
    NOTIFY_WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    MODEL_PROVIDER: 'offline',
  } as NodeJS.ProcessEnv);
  service = await createService(config, silentLogger(), undefined, { now: () => clock });
  // The scheduler's first look at a schedule only sets when it is next due.
  await service.scheduler.tick();
}, 60_000);
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

const call = (key: keyof typeof KEYS, tool: string, body: Json) => request(service.app).post(`/tools/${tool}`).set('authorization', `Bearer ${KEYS[key]}`).send(body);
const result = async (key: keyof typeof KEYS, tool: string, body: Json) => {
  const response = await call(key, tool, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.result as Json;
};

/** Moves the clock to a check's next due time and lets the scheduler run what is due, then delivers the notifications. */
async function runScheduled(check: string, key: keyof typeof KEYS = 'controller'): Promise<Json> {
  const listed = (await result(key, 'list_checks', {})).checks.find((entry: Json) => entry.check === check);
  clock = Date.parse(listed.next_due_at) + 60_000;
  await service.scheduler.tick();
  await service.outbox.deliverDue();
  return (await result(key, 'check_history', { check })) as Json;
}

/** Plants a line of 12,345.67 GBP in FI for company 3000 in December 2024 (or takes it out again). */
function plantedLine(present: boolean): void {
  const database = new Database(dataFile);
  if (present) {
    database.exec(`INSERT INTO fi_reporting (compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, ac_docnr, docline, prof_ctr, segment, cs_trn_lc, curkey_lc, quantity, request_id)
      SELECT compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, 'PLANTED01', 1, prof_ctr, segment, 12345.67, curkey_lc, 0, 'REQ_PLANTED' FROM fi_reporting WHERE compcode = '3000' AND fiscper = '2024012' LIMIT 1`);
  } else {
    database.exec("DELETE FROM fi_reporting WHERE ac_docnr = 'PLANTED01'");
  }
  database.close();
}

describe('a monthly check', () => {
  it('is saved with its first run, ties, breaks on a planted line, and notifies once per change', async () => {
    const saved = await result('uk', 'save_check', {
      name: 'FI vs BPC 3000',
      comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000' } },
      period: { kind: 'fixed', period: '2024-12' },
      schedule: { kind: 'monthly_working_day', day: 3 },
    });
    expect(saved).toMatchObject({ check: 'FI vs BPC 3000', status: 'tie', trigger: 'manual', by: 'uk-analyst', schedule: 'monthly on the 3rd working day at 06:00 (UTC)' });
    expect(saved.periods[0]).toMatchObject({ period: '2024-12', status: 'tie', totals: [{ currency: 'GBP', difference: 0 }] });

    const first = await runScheduled('FI vs BPC 3000');
    expect(first.runs.map((run: Json) => [run.trigger, run.status])).toEqual([['schedule', 'tie'], ['manual', 'tie']]);
    expect(receiver.requests).toHaveLength(0);

    // The data changes: the next run breaks, and the receiver hears of it once, signed.
    plantedLine(true);
    const broken = await runScheduled('FI vs BPC 3000');
    expect(broken.runs[0]).toMatchObject({ trigger: 'schedule', status: 'break', periods: [{ period: '2024-12', status: 'break', totals: [{ currency: 'GBP', difference: 12345.67 }] }] });
    expect(receiver.requests).toHaveLength(1);
    const message = JSON.parse(receiver.requests[0]!.body) as Json;
    expect(message).toMatchObject({ event: 'check.status_changed', source: 'month_end_close', data: { from: 'tie', to: 'break' } });
    expect(message.text).toMatch(/^FI vs BPC 3000: tie → break — difference 2024-12 GBP 12345\.67/);
    expect(verified(receiver.requests[0]!, SECRET, clock)).toBe(true);
    expect(broken.open_items).toMatchObject([{ period: '2024-12', difference: 12345.67, age_days: 0 }]);

    // Still broken a month later: no new message, and the difference is carried forward with its age.
    const breakAt = Date.parse(broken.runs[0].at);
    const still = await runScheduled('FI vs BPC 3000');
    expect(still.runs[0].status).toBe('break');
    expect(receiver.requests).toHaveLength(1);
    const age = Math.floor((Date.parse(still.runs[0].at) - breakAt) / 86_400_000);
    expect(age).toBeGreaterThanOrEqual(28);
    expect(still.open_items).toMatchObject([{ open_since: broken.runs[0].at, age_days: age }]);
    expect(still.open_items[0].statement).toMatch(new RegExp(`open since the \\w+ run, ${age} days$`));
    expect(still.trend.map((point: Json) => point.difference)).toEqual([0, 0, 12345.67, 12345.67]);

    // Only a key allowed to sign signs; the sign-off names who, when and why.
    const refused = await call('uk', 'sign_off_run', { check: 'FI vs BPC 3000', note: 'explained by the planted line' });
    expect(refused.body.error).toMatchObject({ code: 'forbidden', permission: 'sign_off' });
    const signed = await result('controller', 'sign_off_run', { check: 'FI vs BPC 3000', period: '2024-12', note: 'explained by the December delta load, reversal posted' });
    expect(signed).toMatchObject({ period: '2024-12', status: 'break', signed_by: 'controller' });

    // The line is taken out: the run ties again, says so once, closes the item and re-opens the sign-off (other figures).
    plantedLine(false);
    const mended = await runScheduled('FI vs BPC 3000');
    expect(mended.runs[0].status).toBe('tie');
    const events = receiver.requests.map((received) => JSON.parse(received.body) as Json);
    expect(events.map((event) => [event.event, event.data.from ?? null, event.data.to ?? null])).toEqual([
      ['check.status_changed', 'tie', 'break'],
      ['check.status_changed', 'break', 'tie'],
      ['check.signoff_reopened', null, null],
    ]);
    expect(receiver.requests.slice(1).every((received) => verified(received, SECRET, clock))).toBe(true);
    expect(mended.open_items).toEqual([]);
    expect(mended.closed_items).toBe(1);
    expect(mended.signoffs).toMatchObject([{ period: '2024-12', state: 'reopened', by: 'controller', reopened_by_run: mended.runs[0].run }]);

    // Nothing new to say: a second tick in the same minute runs nothing and sends nothing.
    await service.scheduler.tick();
    await service.outbox.deliverDue();
    expect(receiver.requests).toHaveLength(3);
  });

  it("is seen and run only by keys of its scope (and unscoped keys)", async () => {
    const listed = async (key: keyof typeof KEYS) => (await result(key, 'list_checks', {})).checks.map((check: Json) => check.check);
    expect(await listed('uk')).toContain('FI vs BPC 3000');
    expect(await listed('controller')).toContain('FI vs BPC 3000');
    expect(await listed('us')).toEqual([]);
    const run = await call('us', 'run_check', { check: 'FI vs BPC 3000' });
    expect(run.body.error).toMatchObject({ code: 'unknown_value', choices: [] });
    const history = await call('us', 'check_history', { check: 'FI vs BPC 3000' });
    expect(history.body.error).toMatchObject({ code: 'unknown_value' });
    // An unscoped key sees it, but does not run it by hand: it would compute other figures than its owner's.
    const byController = await call('controller', 'run_check', { check: 'FI vs BPC 3000' });
    expect(byController.body.error).toMatchObject({ code: 'forbidden', argument: 'check' });
    const byOwner = await result('uk', 'run_check', { check: 'FI vs BPC 3000' });
    expect(byOwner.periods[0].totals).toEqual([{ currency: 'GBP', total_a: expect.any(Number), total_b: expect.any(Number), difference: 0, difference_percent: 0 }]);
  });

  it('records a run whose data cannot be read as an error, never a break, and says why', async () => {
    renameSync(dataFile, `${dataFile}.away`);
    try {
      await until(() => service.queries.componentHealth().data.status === 'down', 10_000, 'the data to be reported down');
      const failed = await result('uk', 'run_check', { check: 'FI vs BPC 3000' });
      expect(failed.status).toBe('error');
      expect(failed.periods[0]).toMatchObject({ status: 'error', error: { code: 'data_unavailable' } });
      const listed = (await result('controller', 'list_checks', {})).checks.find((check: Json) => check.check === 'FI vs BPC 3000');
      expect(listed).toMatchObject({ status: 'error', error: expect.stringMatching(/./) });
    } finally {
      renameSync(`${dataFile}.away`, dataFile);
    }
    await until(() => service.queries.componentHealth().data.status === 'ok', 10_000, 'the data to be back');
    expect((await result('uk', 'run_check', { check: 'FI vs BPC 3000' })).status).toBe('tie');
  });

  it('lists the checks that broke, and refuses a second check of the same name', async () => {
    await result('controller', 'save_check', {
      name: 'FI vs BPC 1000',
      comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000' } },
      period: { kind: 'fixed', period: '2024-12' },
    });
    const broke = await result('controller', 'list_checks', { status: 'break' });
    expect(broke.checks).toMatchObject([{ check: 'FI vs BPC 1000', status: 'break', open_items: 1, differences: [{ period: '2024-12', currency: 'EUR', difference: 110000 }], schedule: null }]);
    const again = await call('controller', 'save_check', { name: 'fi vs bpc 1000', comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' } });
    expect(again.body.error).toMatchObject({ code: 'invalid_value', argument: 'name' });
    expect(await result('controller', 'delete_check', { check: 'FI vs BPC 1000' })).toEqual({ check: 'FI vs BPC 1000', deleted: true });
    // Saved again under the name (here by a scoped key), it starts afresh: none of the deleted check's runs, items or sign-offs.
    await result('uk', 'save_check', { name: 'FI vs BPC 1000', comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000' } }, period: { kind: 'fixed', period: '2024-12' } });
    const fresh = await result('uk', 'check_history', { check: 'FI vs BPC 1000' });
    expect(fresh.runs.map((run: Json) => run.status)).toEqual(['tie']);
    expect([fresh.open_items, fresh.closed_items, fresh.signoffs]).toEqual([[], 0, []]);
  });
});
