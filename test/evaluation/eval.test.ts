/**
 * `npm run eval` (scripts/eval.ts) run for real, as a child process, against a real service
 * listening on a free port with the offline model: a small question file with one answer the
 * service gets right, a follow-up that is only right when asked in the same conversation, a
 * question it must ask back about, and one whose expected figure is deliberately off by a
 * cent, so the command must call that answer wrong. Then what stops a run (an unreachable URL,
 * a missing or refused key) and what does not (a question the service rejects).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import type { EvaluationReport } from '../../src/evaluation/runEvaluation.ts';
import { listeningServices } from '../support/listeningService.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'eval-command-'));
const services = listeningServices();
afterEach(() => services.closeAll());
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const KEY = 'evaluation-test-key-0123456789';

/** The question file of the main run: five questions, one wrong on purpose. */
const QUESTIONS = `# A small set in the format of evaluation/questions.yaml.
- id: de-december
  question: What is the operating result of Contoso Deutschland GmbH in fi_reporting for December 2024?
  expect: { kind: answer, figures: ['443,100.00'] }
- id: uk-october-fi-vs-bpc
  question: Compare FI with BPC for company 3000 in October
  expect: { kind: answer, figures: ['101,100.00', '76,100.00', '25,000.00'] }
- id: uk-same-for-september
  question: same for September
  followUp: true
  expect: { kind: answer, figures: ['96,900.00'] }
- id: vague
  question: what was the number last month?
  expect: { kind: clarify, reason: 'no figure, company or source named' }
- id: inc-december-off-by-a-cent
  question: FI result for Contoso Inc. in Dec-24?
  # The data says 191,720.58: this expectation is wrong on purpose.
  expect: { kind: answer, figures: ['191,720.59'] }
`;

interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tsx scripts/eval.ts …` (what `npm run eval` runs) without blocking this process, which serves the questions. */
function runEval(args: string[], environment: Record<string, string> = {}): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(
      path.join(projectRoot, 'node_modules', '.bin', 'tsx'),
      ['scripts/eval.ts', ...args],
      { cwd: projectRoot, env: { ...process.env, ANALYST_API_KEY: '', ...environment }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function writeQuestions(name: string, content: string): string {
  const file = path.join(directory, name);
  writeFileSync(file, content);
  return file;
}

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const offline = (name: string, extra: Record<string, string> = {}) => ({
  LOG_LEVEL: 'silent',
  MODEL_PROVIDER: 'offline',
  RATE_LIMIT_PER_MINUTE: '0',
  APP_DB: path.join(directory, `${name}.db`),
  ...extra,
});

// Each run starts tsx (a second or two); a shared, busy machine may take several times that.
describe('npm run eval against a running service', { timeout: 90_000 }, () => {
  it('prints each question with its outcome and the summary, and writes the same as JSON', async () => {
    const { url } = await services.start(offline('main'));
    const questions = writeQuestions('questions.yaml', QUESTIONS);
    const out = path.join(directory, 'run.json');
    const run = await runEval(['--url', url, '--questions', questions, '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const lineOf = (id: string) => lines.find((line) => line.includes(` ${id} `)) ?? '';
    // Outcome, latency, model calls, then the amounts verified of those stated (the offline model's: all).
    expect(lineOf('de-december')).toMatch(/\banswer\s+correct\s+\d+\.\d ms\s+\d+\s+(\d+)\/\1$/);
    expect(lineOf('uk-october-fi-vs-bpc')).toMatch(/\bcorrect\b/);
    expect(lineOf('uk-same-for-september')).toMatch(/\bcorrect\b/);
    expect(lineOf('vague')).toMatch(/\bclarify\s+clarified\b/);
    expect(lineOf('inc-december-off-by-a-cent')).toMatch(/\banswer\s+wrong\b/);
    expect(run.stdout).toContain('outcomes: correct 3, clarified 1, declined 0, wrong 1, error 0');
    expect(run.stdout).toContain('accuracy: 75.0% (3 correct of 4 questions that expect figures or a knowledge citation');
    expect(run.stdout).toContain('wrong answers: 1\n  - inc-december-off-by-a-cent: FI result for Contoso Inc. in Dec-24?\n      expected: 191,720.59\n      answer:   ');
    expect(run.stdout).toMatch(/answer: {3}.*191,720\.58 USD/);
    expect(run.stdout).toMatch(/^model calls: \d+ \(/m);
    expect(run.stdout).toMatch(/^tokens: input [\d,]+, output [\d,]+$/m);
    expect(run.stdout).toMatch(/^latency: p50 \d+\.\d ms, p95 \d+\.\d ms, max \d+\.\d ms \(5 answered questions, measured by this client\)$/m);
    expect(run.stdout).toContain('(offline model offline-planner)');
    expect(run.stdout).toMatch(/^figures: [1-9][\d,]* verified, 0 unverified \(100\.0% verified\); 0 answers with an unverified figure; 0 answers repaired$/m);

    const report = JSON.parse(readFileSync(out, 'utf8')) as EvaluationReport & { questions_file: string };
    expect(report.questions_file).toBe(questions);
    expect(report.model).toEqual({ provider: 'offline', name: 'offline-planner' });
    expect(report.results.map((result) => [result.id, result.outcome])).toEqual([
      ['de-december', 'correct'],
      ['uk-october-fi-vs-bpc', 'correct'],
      ['uk-same-for-september', 'correct'],
      ['vague', 'clarified'],
      ['inc-december-off-by-a-cent', 'wrong'],
    ]);
    // The follow-up went into the conversation of the question before it, and only there.
    const [first, second, third] = report.results;
    expect(third!.session_id).toBe(second!.session_id);
    expect(second!.session_id).not.toBe(first!.session_id);
    expect(report.summary.outcomes).toEqual({ correct: 3, clarified: 1, declined: 0, wrong: 1, error: 0 });
    expect(report.summary.accuracy).toMatchObject({ correct: 3, of: 4, share: 0.75 });
    expect(report.summary.wrong_answers).toEqual([
      { id: 'inc-december-off-by-a-cent', question: 'FI result for Contoso Inc. in Dec-24?', expected: { kind: 'answer', figures: ['191,720.59'] }, answer: expect.stringContaining('191,720.58') },
    ]);
    const calls = report.results.map((result) => result.model_calls ?? 0);
    expect(report.summary.model_calls.total).toBe(calls.reduce((a, b) => a + b, 0));
    expect(report.summary.model_calls.total).toBeGreaterThanOrEqual(5);
    expect(report.summary.tokens.input).toBeGreaterThan(0);
    expect(report.summary.tokens.output).toBeGreaterThan(0);
    expect(report.summary.latency_ms.answered).toBe(5);
    for (const value of [report.summary.latency_ms.p50, report.summary.latency_ms.p95]) expect(value).toBeGreaterThan(0);
    expect(report.summary.latency_ms.p95!).toBeGreaterThanOrEqual(report.summary.latency_ms.p50!);
    for (const result of report.results) expect(result.latency_ms).toBeGreaterThan(0);
  });

  it('records a question the service rejects as an error, goes on, and fails the run only with --fail-on-wrong', async () => {
    const { url } = await services.start(offline('rejected'));
    const questions = writeQuestions(
      'rejected.yaml',
      `- id: far-too-long
  question: ${'why '.repeat(2100)}
  expect: { kind: decline, reason: longer than the service accepts }
- id: de-december
  question: What is the operating result of Contoso Deutschland GmbH in fi_reporting for December 2024?
  expect: { kind: answer, figures: ['443,100.00'] }
`,
    );
    const run = await runEval(['--url', url, '--questions', questions]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ far-too-long .*\berror\b.*HTTP 400 invalid-request/);
    expect(run.stdout).toMatch(/ de-december .*\bcorrect\b/);
    expect(run.stdout).toContain('outcomes: correct 1, clarified 0, declined 0, wrong 0, error 1');
    expect(run.stdout).toContain('accuracy: 100.0% (1 correct of 1 questions');

    const strict = await runEval(['--url', url, '--questions', questions, '--fail-on-wrong']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('error 1');
  });

  it('exits 1 with --fail-on-wrong when an answer is wrong', async () => {
    const { url } = await services.start(offline('strict'));
    const run = await runEval(['--url', url, '--questions', writeQuestions('strict.yaml', QUESTIONS), '--fail-on-wrong']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('wrong answers: 1');
  });
});

describe('npm run eval when it cannot run', { timeout: 90_000 }, () => {
  const oneQuestion = () => writeQuestions('one.yaml', "- id: de-december\n  question: FI total for 1000 in December 2024\n  expect: { kind: answer, figures: ['443,100.00'] }\n");

  it('stops with exit 3 and says so when nothing listens at the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await runEval(['--url', url, '--questions', oneQuestion()]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`eval stopped: Cannot reach the service at ${url}: ECONNREFUSED. Is it running (npm start)? Pass its address with --url.`);
  });

  it('stops with exit 3 without a key, or with a key the service refuses, and never prints the key', async () => {
    const { url } = await services.start(offline('keys', { API_KEYS: KEY }));
    const questions = oneQuestion();

    const withoutKey = await runEval(['--url', url, '--questions', questions]);
    expect(withoutKey.code).toBe(3);
    expect(withoutKey.stderr).toContain('eval stopped: The service requires an API key (HTTP 401): pass one of its API_KEYS with --key');

    const wrongKey = 'not-the-service-key-0123456789';
    const refused = await runEval(['--url', url, '--questions', questions, '--key', wrongKey]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('eval stopped: The service refused the key (HTTP 401): pass one of its API_KEYS with --key.');
    expect(refused.stdout + refused.stderr).not.toContain(wrongKey);

    const accepted = await runEval(['--url', url, '--questions', questions], { ANALYST_API_KEY: KEY });
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('outcomes: correct 1, clarified 0, declined 0, wrong 0, error 0');
    expect(accepted.stdout + accepted.stderr).not.toContain(KEY);
  });

  it('refuses a bad question file before asking anything, naming the line and the question (exit 2)', async () => {
    const questions = writeQuestions('bad.yaml', "- id: one\n  question: FI total for 1000\n  expect: { kind: answer, figures: [443100] }\n");
    const run = await runEval(['--url', `http://127.0.0.1:${await closedPort()}`, '--questions', questions]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${questions}:3 question 1 (id 'one') expect.figures.0: must be text (quote it in YAML: '443,100.00')`);
  });

  it('refuses unknown options and bad values with the usage (exit 2)', async () => {
    const unknown = await runEval(['--model', 'gpt']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--model'");
    expect(unknown.stderr).toContain('usage: npm run eval --');
    const badUrl = await runEval(['--url', 'localhost:3000']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain("--url must be an http(s) URL such as http://127.0.0.1:3000, got 'localhost:3000'");
  });
});
