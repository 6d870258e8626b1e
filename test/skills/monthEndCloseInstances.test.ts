/**
 * The month-end close on two instances sharing a PostgreSQL application database: both tick at
 * the same moments, and each scheduled run happens once and each change of status reaches the
 * webhook once. A run whose instance was killed mid-run (its claim and a half-written run left
 * behind, as SIGKILL leaves them) is taken up by the other instance once the claim lapses, and
 * its change of status is still told exactly once.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { scratchDatabase, type ScratchDatabase } from '../sessions/support/postgresDatabase.ts';
import { startReceiver, verified, type Receiver } from '../notifications/support/receiver.ts';

type Json = Record<string, any>;

const SECRET = 'close-instances-secret-0123456789';
const instances: Service[] = [];
let database: ScratchDatabase;
let receiver: Receiver;
let dataFile: string;
let clock = Date.now();

beforeAll(async () => {
  database = await scratchDatabase((await postgresUrls()).adminUrl, 'close');
  const directory = temporaryDirectory('close-instances-');
  dataFile = path.join(directory, 'data.db');
  copyFileSync(path.join(projectRoot, 'data/sample.db'), dataFile);
  receiver = await startReceiver();
  for (let index = 0; index < 2; index += 1) {
    const config = loadConfig({ DATA_DB: dataFile, APP_DB: database.url, NOTIFY_WEBHOOK_URL: receiver.url, NOTIFY_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', API_KEYS: '' } as NodeJS.ProcessEnv);
    instances.push(await createService(config, silentLogger(), undefined, { now: () => clock }));
  }
  await Promise.all(instances.map((instance) => instance.scheduler.tick()));
}, 60_000);
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await receiver?.close();
  await database?.drop();
});

const tool = async (instance: Service, name: string, body: Json) => {
  const response = await request(instance.app).post(`/tools/${name}`).send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.result as Json;
};

/** Both instances tick at the check's next due time, then deliver what they queued. */
async function tickBoth(): Promise<Json> {
  const [check] = (await tool(instances[0]!, 'list_checks', {})).checks as Json[];
  clock = Date.parse(check!.next_due_at) + 60_000;
  await Promise.all(instances.map((instance) => instance.scheduler.tick()));
  await Promise.all(instances.map((instance) => instance.outbox.deliverDue()));
  return tool(instances[1]!, 'check_history', { check: 'FI vs BPC 3000' });
}

function plantedLine(present: boolean): void {
  const data = new Database(dataFile);
  if (present) {
    data.exec(`INSERT INTO fi_reporting (compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, ac_docnr, docline, prof_ctr, segment, cs_trn_lc, curkey_lc, quantity, request_id)
      SELECT compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, 'PLANTED02', 1, prof_ctr, segment, 5000, curkey_lc, 0, 'REQ_PLANTED' FROM fi_reporting WHERE compcode = '3000' AND fiscper = '2024012' LIMIT 1`);
  } else data.exec("DELETE FROM fi_reporting WHERE ac_docnr = 'PLANTED02'");
  data.close();
}

describe('a check on two instances sharing PostgreSQL', () => {
  it('runs each slot once and tells each change once, also after an instance died mid-run', async () => {
    await tool(instances[0]!, 'save_check', {
      name: 'FI vs BPC 3000',
      comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000' } },
      period: { kind: 'fixed', period: '2024-12' },
      schedule: { kind: 'daily' },
    });
    const first = await tickBoth();
    expect(first.runs.map((run: Json) => run.trigger)).toEqual(['schedule', 'manual']);

    plantedLine(true);
    const broken = await tickBoth();
    expect(broken.runs.map((run: Json) => run.status)).toEqual(['break', 'tie', 'tie']);
    expect(receiver.requests.map((received) => (JSON.parse(received.body) as Json).data.to)).toEqual(['break']);

    // An instance took the next slot and was killed mid-run: its claim and a run still 'running' stay behind.
    plantedLine(false);
    const [check] = (await tool(instances[0]!, 'list_checks', {})).checks as Json[];
    const slot = check!.next_due_at as string;
    const store = await openPostgresStore({ url: database.url, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
    try {
      const records = store.skillRecords('month_end_close');
      const stored = (await records.get<Json>('checks', 'fi_vs_bpc_3000'))!;
      const run = `fi_vs_bpc_3000|${slot}`;
      await records.put('checks', 'fi_vs_bpc_3000', { ...stored.value, next_due_at: new Date(Date.parse(slot) + 86_400_000).toISOString(), running: { run, until: new Date(Date.parse(slot) + 600_000).toISOString() } }, { version: stored.version });
      await records.put('runs', run, { check: 'fi_vs_bpc_3000', run, trigger: 'schedule', by: 'schedule', state: 'running', attempt: 1, started_at: slot, periods: [] });
    } finally {
      await store.close();
    }
    // While the claim holds, nobody runs it; once it lapsed, one instance runs the same slot again.
    clock = Date.parse(slot) + 60_000;
    await Promise.all(instances.map((instance) => instance.scheduler.tick()));
    expect((await tool(instances[1]!, 'check_history', { check: 'FI vs BPC 3000' })).runs).toHaveLength(3);
    clock = Date.parse(slot) + 11 * 60_000;
    await Promise.all(instances.map((instance) => instance.scheduler.tick()));
    await Promise.all(instances.map((instance) => instance.outbox.deliverDue()));
    const resumed = await tool(instances[1]!, 'check_history', { check: 'FI vs BPC 3000' });
    expect(resumed.runs.map((run: Json) => [run.at, run.status])).toEqual([[slot, 'tie'], [expect.any(String), 'break'], [expect.any(String), 'tie'], [expect.any(String), 'tie']]);
    expect(receiver.requests.map((received) => (JSON.parse(received.body) as Json).data.to)).toEqual(['break', 'tie']);
    expect(verified(receiver.requests[1]!, SECRET, clock)).toBe(true);
  });
});
