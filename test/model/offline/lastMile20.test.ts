/**
 * The last mile of issue 20, as a user of the offline model sees it through POST /chat of a
 * real service: a conversion asked of the figure before ("what is that in EUR?") is a one-off
 * view, so the next follow-up answers in the source's own measure again. Every expected figure
 * is computed here by SQL on data/sample.db.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../../src/config/config.ts';
import { silentLogger } from '../../../src/logging/logger.ts';
import { createService, type Service } from '../../../src/service.ts';

let service: Service;
const directory = mkdtempSync(path.join(tmpdir(), 'last-mile-20-'));
const sample = new Database(path.join(projectRoot, 'data/sample.db'), { readonly: true });
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await service.close();
  sample.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Asks a conversation, one message after the other, and returns the answers, one per message. */
async function ask<T extends string[]>(...messages: T): Promise<{ [K in keyof T]: string }> {
  const answers: string[] = [];
  let session: string | undefined;
  for (const message of messages) {
    const response = await supertest(service.app).post('/chat').send({ message, ...(session ? { session_id: session } : {}) });
    expect(response.status).toBe(200);
    session = response.body.session_id;
    answers.push(response.body.answer);
  }
  return answers as { [K in keyof T]: string };
}

type Row = Record<string, any>;
const rows = (sql: string, ...params: unknown[]) => sample.prepare(sql).all(...params) as Row[];
/** An amount as the answers write it (en-US, two decimals). */
const money = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

describe('a conversion of the figure before is a one-off view', () => {
  it('answers the next follow-up in the source own measure, not in the converted one', async () => {
    const [manual] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS lc, ROUND(SUM(cs_trn_gc), 2) AS gc FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL'");
    const [account] = rows("SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS lc, MIN(curkey_lc) AS currency FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL' GROUP BY grpacct");
    const [first, converted, next] = await ask('manual adjustments in BPC, actuals', 'what is that in group currency?', 'which account was it booked on?');
    expect(first).toContain(money(manual!.lc));
    expect(converted).toContain(money(manual!.gc));
    expect(next).toContain(`${account!.grpacct}: ${money(account!.lc)} ${account!.currency}`);
    expect(next).not.toContain(money(manual!.gc));
  });

  it('keeps a measure the conversation itself chose before the conversion', async () => {
    const [gc] = rows("SELECT grpacct, ROUND(SUM(cs_trn_gc), 2) AS gc FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL' GROUP BY grpacct");
    const [, , next] = await ask('manual adjustments in BPC in group currency, actuals', 'how big is that in EUR?', 'split it by group account');
    expect(next).toContain(`${gc!.grpacct}: ${money(gc!.gc)} EUR`);
  });
});
