/**
 * A real service with the offline model for tests that ask questions through POST /chat, and
 * the sample data to compute the expected figures with SQL. Call at a test file's top level:
 * it registers the hooks that start and stop the service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import supertest from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

export type Row = Record<string, any>;

/**
 * @example
 * const { ask, rows, money } = offlineChat();
 * const [total, followUp] = await ask('FI total for 1000 in Dec-24?', 'and for 2000?');
 */
export function offlineChat() {
  let service: Service;
  const directory = mkdtempSync(path.join(tmpdir(), 'offline-chat-'));
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

  return {
    ask,
    /** Rows of a query on data/sample.db. */
    rows: (sql: string, ...params: unknown[]) => sample.prepare(sql).all(...params) as Row[],
    /** An amount as the answers write it (en-US, two decimals). */
    money: (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  };
}
