/**
 * The offline model's real answers carry receipts: both project question sets are asked
 * through POST /chat of a real service (follow-ups in one conversation), and every amount and
 * percentage of every correct answer must be traced to the tool calls the /chat response
 * returns. Also asked in German: the same figures, written 443.100,00, read in that locale.
 * Prints the verified share per set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { outcomeOf } from '../../src/evaluation/answerOutcome.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { checkAnswer, type ToolResult } from '../../src/receipts/index.ts';
import { createService, type Service } from '../../src/service.ts';
import { analystQuestions, heldOutQuestions, type AnalystQuestion } from '../fixtures/analystQuestions.ts';

let service: Service;
const directory = mkdtempSync(path.join(tmpdir(), 'receipts-offline-'));
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await service.close();
  rmSync(directory, { recursive: true, force: true });
});

interface Tally {
  answers: number;
  figures: number;
  verified: number;
}

/** Asks one question and checks the figures of its answer against the calls /chat returned. */
async function ask(message: string, sessionId: string | undefined, locale?: string) {
  const response = await supertest(service.app).post('/chat').send({ message, ...(sessionId ? { session_id: sessionId } : {}), ...(locale ? { locale } : {}) });
  expect(response.status).toBe(200);
  const results: ToolResult[] = response.body.tool_calls.filter((call: { ok: boolean }) => call.ok).map(({ id, name, result }: ToolResult) => ({ id, name, result }));
  const { figures, unverified } = checkAnswer(response.body.answer, results, { locale });
  const amounts = figures.filter((figure) => figure.kind === 'amount' || figure.kind === 'percent');
  return { body: response.body, amounts, unverified };
}

function askSet(name: string, questions: AnalystQuestion[]): void {
  describe(`receipts of the offline model's answers on the ${name}`, () => {
    const tally: Tally = { answers: 0, figures: 0, verified: 0 };
    let sessionId: string | undefined;
    it.each(questions.map((question) => [question.id, question] as const))('%s', async (_id, question) => {
      const { body, amounts, unverified } = await ask(question.question, question.followUp ? sessionId : undefined);
      sessionId = body.session_id;
      if (outcomeOf(body.answer, question.expect) !== 'correct') return;
      tally.answers += 1;
      tally.figures += amounts.length;
      tally.verified += amounts.length - unverified.length;
      expect(unverified.map((figure) => figure.text), body.answer).toEqual([]);
    });

    it('verifies every amount and percentage of its correct answers', () => {
      console.log(`${name}: ${tally.answers} correct answers, ${tally.verified} of ${tally.figures} amounts and percentages verified (${((tally.verified / tally.figures) * 100).toFixed(1)}%)`);
      expect(tally.answers).toBeGreaterThanOrEqual(20);
      expect(tally.figures).toBeGreaterThanOrEqual(20);
      expect(tally.verified).toBe(tally.figures);
    });
  });
}

askSet('analyst question set', analystQuestions);
askSet('held-out question set', heldOutQuestions);

describe('receipts of German answers', () => {
  // Questions that stand alone and expect figures: asked with locale de-DE, written 443.100,00.
  const questions = analystQuestions.filter((question) => !question.followUp && question.expect.kind === 'answer' && question.expect.figures.length > 0).slice(0, 30);
  const tally: Tally = { answers: 0, figures: 0, verified: 0 };
  it.each(questions.map((question) => [question.id, question] as const))('%s', async (_id, question) => {
    const { body, amounts, unverified } = await ask(question.question, undefined, 'de-DE');
    tally.answers += 1;
    tally.figures += amounts.length;
    tally.verified += amounts.length - unverified.length;
    expect(unverified.map((figure) => figure.text), body.answer).toEqual([]);
  });

  it('reads the German figures as the amounts the tools returned', () => {
    console.log(`German answers: ${tally.answers}, ${tally.verified} of ${tally.figures} amounts and percentages verified`);
    expect(tally.figures).toBeGreaterThanOrEqual(30);
    expect(tally.verified).toBe(tally.figures);
  });
});
