/**
 * The offline model on the project's analyst question sets: evaluation/questions.yaml and the
 * held-out evaluation/questions-heldout.yaml (written without reading the model). Questions as
 * analysts write them, asked through POST /chat of a real service, follow-ups in one
 * conversation. Prints correct / clarified / declined / wrong per set, and fails on any wrong
 * answer: a clarification or an honest "I can't" is acceptable, a broader figure never.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { analystQuestions, heldOutQuestions, type AnalystQuestion } from '../fixtures/analystQuestions.ts';
import { outcomeOf, type Outcome } from '../../src/evaluation/answerOutcome.ts';

let service: Service;
const directory = mkdtempSync(path.join(tmpdir(), 'analyst-questions-'));
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
});

const results: { set: string; id: string; question: string; outcome: Outcome; answer: string }[] = [];
afterAll(async () => {
  await service.close();
  rmSync(directory, { recursive: true, force: true });
  // ANALYST_OUTCOMES=file writes each question's outcome and answer, to study what it misses.
  if (process.env.ANALYST_OUTCOMES) writeFileSync(process.env.ANALYST_OUTCOMES, JSON.stringify(results, null, 1));
});

/**
 * Asks one set, in order, and checks it: no wrong answer, and at least `minCorrectShare` of
 * the in-scope questions (those expecting figures, mentions or a knowledge citation) correct.
 */
function askSet(name: string, questions: AnalystQuestion[], minCorrectShare: number): void {
  describe(`offline model on the ${name}`, () => {
    const outcomes = new Map<string, Outcome>();
    afterAll(() => {
      const counts = { correct: 0, clarified: 0, declined: 0, wrong: 0 };
      for (const outcome of outcomes.values()) counts[outcome] += 1;
      console.log(`${name}: ${outcomes.size} asked; correct ${counts.correct}, clarified ${counts.clarified}, declined ${counts.declined}, wrong ${counts.wrong}`);
    });

    let sessionId: string | undefined;
    it.each(questions.map((q) => [q.id, q] as const))('%s', async (_id, item) => {
      const response = await supertest(service.app)
        .post('/chat')
        .send({ message: item.question, ...(item.followUp && sessionId ? { session_id: sessionId } : {}) });
      expect(response.status).toBe(200);
      sessionId = response.body.session_id;
      const outcome = outcomeOf(response.body.answer, item.expect);
      outcomes.set(item.id, outcome);
      results.push({ set: name, id: item.id, question: item.question, outcome, answer: response.body.answer });
      expect(outcome, `${item.question}\n→ ${response.body.answer}`).not.toBe('wrong');
    });

    it(`answers at least ${minCorrectShare * 100}% of the in-scope questions correctly`, () => {
      const inScope = questions.filter((q) => q.expect.kind === 'answer' || q.expect.kind === 'knowledge');
      const correct = inScope.filter((q) => outcomes.get(q.id) === 'correct').length;
      console.log(`${name}: ${correct} of ${inScope.length} in-scope questions correct (${((correct / inScope.length) * 100).toFixed(1)}%)`);
      expect(correct / inScope.length).toBeGreaterThanOrEqual(minCorrectShare);
    });
  });
}

// The project's set keeps its threshold; the held-out set is held to issue 20's target.
askSet('analyst question set', analystQuestions, 0.8);
askSet('held-out question set', heldOutQuestions, 0.92);
