/**
 * `npm run catalog:check -- --catalog FILE [--data URL]`: starts the service on a catalog (the
 * offline model, a throwaway conversation store, nothing listening) and asks it the questions
 * of src/catalog/checkQuestions.ts, printing each answer and the tools it called, so that a user
 * who just ran catalog:init sees in a minute whether chat works on the draft. Exit 1 when the
 * service cannot start on the catalog (the reason names the line), 2 on a usage error; answers
 * that ask back are shown, not failed: they say which word or name to add to the catalog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { checkQuestions } from '../src/catalog/checkQuestions.ts';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { createService } from '../src/service.ts';

const USAGE = 'usage: npm run catalog:check -- --catalog FILE [--data URL]\n  --data: the default connection (DATA_URL), when the catalog\'s sources live on it';

/** One question as asked, with what came back. */
export interface CheckedAnswer {
  question: string;
  checks: string;
  answer: string;
  tools: string[];
  /** 'answered' (states figures or lists), 'asked back' (a question), or 'declined'. */
  outcome: 'answered' | 'asked back' | 'declined';
}

/**
 * Starts the service on the catalog and asks the generated questions, one conversation each.
 *
 * @example
 * const answers = await checkCatalog({ catalog: 'draft.yaml', data: 'sqlite:ledger.db' });
 */
export async function checkCatalog(options: { catalog: string; data?: string }): Promise<CheckedAnswer[]> {
  const directory = mkdtempSync(path.join(tmpdir(), 'catalog-check-'));
  const environment = { LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', RATE_LIMIT_PER_MINUTE: '0', QUERY_WORKERS: '1', CATALOG: path.resolve(options.catalog), APP_DB: path.join(directory, 'app.db'), ...(options.data ? { DATA_URL: options.data } : {}) };
  const service = await createService(loadConfig({ ...process.env, ...environment }), silentLogger());
  // Asked over real HTTP on 127.0.0.1, so the answers are what /chat gives.
  const server = service.app.listen(0, '127.0.0.1');
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
    const answers: CheckedAnswer[] = [];
    for (const { question, checks } of checkQuestions(service.services.catalog)) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: question }) });
      const body = (await response.json()) as { answer?: string; detail?: string; tool_calls?: { name: string }[] };
      const answer = String(body.answer ?? body.detail ?? `HTTP ${response.status}`);
      const tools = (body.tool_calls ?? []).map((call) => call.name);
      const outcome = /\d[\d,]*\.\d{2}\b|\d{1,3}(,\d{3})+/.test(answer) || (tools.includes('list_sources') && !/\?\s*$/.test(answer)) ? 'answered' : /\?/.test(answer) ? 'asked back' : 'declined';
      answers.push({ question, checks, answer, tools, outcome });
    }
    return answers;
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await service.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The answers as text for a person: each question, the tools, the answer (first lines), a tally. */
export function formatCheck(answers: readonly CheckedAnswer[]): string {
  const lines: string[] = [];
  for (const [index, item] of answers.entries()) {
    const shown = item.answer.split('\n').slice(0, 8);
    lines.push(`${index + 1}. ${item.question}  [${item.outcome}; expected: ${item.checks}]`, `   tools: ${item.tools.join(', ') || 'none'}`, ...shown.map((line) => `   ${line}`), '');
  }
  const count = (outcome: CheckedAnswer['outcome']) => answers.filter((a) => a.outcome === outcome).length;
  lines.push(`${count('answered')} of ${answers.length} answered, ${count('asked back')} asked back, ${count('declined')} declined. An answer that asks back names the word or value to add to the catalog (synonyms, value names, descriptions).`);
  return lines.join('\n');
}

async function main(): Promise<number> {
  let values: { catalog?: string; data?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options: { catalog: { type: 'string' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help || !values.catalog) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    process.stdout.write(`${formatCheck(await checkCatalog({ catalog: values.catalog, ...(values.data ? { data: values.data } : {}) }))}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`catalog:check: the service cannot start on ${values.catalog}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main();
