/**
 * `npm run eval -- [--url URL] [--key KEY] [--questions FILE] [--out FILE] [--timeout SECONDS] [--fail-on-wrong]`:
 * asks a question set (the project's evaluation/questions.yaml, or a company's own file in the
 * same format) through POST /chat of a running instance, whatever model it runs, and prints
 * one line per question (correct / clarified / declined / wrong, or error) and a summary:
 * accuracy, wrong answers, model calls, tokens, latency p50/p95; --out writes all of it as JSON.
 * This is how a team compares models on its own data: one instance per model, one run each.
 *
 * Exit codes: 0 the run completed (whatever the accuracy); 1 with --fail-on-wrong, when an
 * answer was wrong or a question got no answer (for CI); 2 bad arguments or question file;
 * 3 the service cannot be reached or refuses the key.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadQuestionSet, projectQuestionFile, QuestionFileError } from '../src/evaluation/questionSet.ts';
import { summaryText, tableHeader, tableRow } from '../src/evaluation/reportText.ts';
import { EvaluationAbortedError, runEvaluation } from '../src/evaluation/runEvaluation.ts';

/** The service's defaults: HOST 127.0.0.1, PORT 3000 (src/config/config.ts). */
const DEFAULT_URL = 'http://127.0.0.1:3000';
/** As long as the service's own default deadline for a question (CHAT_DEADLINE_MS). */
const DEFAULT_TIMEOUT_SECONDS = 180;

const USAGE = `usage: npm run eval -- [--url URL] [--key KEY] [--questions FILE] [--out FILE] [--timeout SECONDS] [--fail-on-wrong]
  --url URL          the running instance (default ${DEFAULT_URL})
  --key KEY          one of its API_KEYS, sent as a bearer token (default: $ANALYST_API_KEY)
  --questions FILE   YAML or JSON question file (default: evaluation/questions.yaml, the project's set)
  --out FILE         also write every question's result and the summary as JSON
  --timeout SECONDS  longest a question may take before it counts as an error (default ${DEFAULT_TIMEOUT_SECONDS})
  --fail-on-wrong    exit 1 when any answer is wrong or any question got no answer (for CI)`;

export interface EvalCommand {
  url: string;
  key: string | undefined;
  questionsFile: string;
  outFile: string | undefined;
  timeoutMs: number;
  failOnWrong: boolean;
}

/**
 * The command line as options, or a message saying what is wrong with it.
 * @example
 * parseCommandLine(['--url', 'http://127.0.0.1:3001', '--out', 'run.json'], {})
 */
export function parseCommandLine(args: string[], environment: NodeJS.ProcessEnv): { ok: true; command: EvalCommand } | { ok: false; message: string } {
  let values: { url?: string; key?: string; questions?: string; out?: string; timeout?: string; 'fail-on-wrong'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        questions: { type: 'string' },
        out: { type: 'string' },
        timeout: { type: 'string' },
        'fail-on-wrong': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return { ok: false, message: `${(error as Error).message}\n${USAGE}` };
  }
  if (values.help) return { ok: false, message: USAGE };
  const url = values.url ?? DEFAULT_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return { ok: false, message: `--url must be an http(s) URL such as ${DEFAULT_URL}, got '${url}'` };
  const seconds = Number(values.timeout ?? DEFAULT_TIMEOUT_SECONDS);
  if (!Number.isFinite(seconds) || seconds <= 0) return { ok: false, message: `--timeout must be a positive number of seconds, got '${values.timeout}'` };
  // Checked now rather than after a run that may take an hour with a hosted model.
  if (values.out && !isDirectory(path.dirname(path.resolve(values.out)))) return { ok: false, message: `--out ${values.out}: its folder does not exist` };
  return {
    ok: true,
    command: {
      url,
      key: values.key || environment.ANALYST_API_KEY || undefined,
      questionsFile: values.questions ?? projectQuestionFile,
      outFile: values.out,
      timeoutMs: seconds * 1000,
      failOnWrong: values['fail-on-wrong'] ?? false,
    },
  };
}

function isDirectory(folder: string): boolean {
  return existsSync(folder) && statSync(folder).isDirectory();
}

/** Runs the command; resolves with the exit code. */
async function main(command: EvalCommand): Promise<number> {
  let questions;
  try {
    questions = loadQuestionSet(command.questionsFile);
  } catch (error) {
    if (!QuestionFileError.isInstance(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const idWidth = Math.min(48, Math.max(2, ...questions.map((question) => question.id.length)));
  const relative = path.relative(process.cwd(), command.questionsFile);
  const shownFile = relative && !relative.startsWith('..') ? relative : command.questionsFile;
  process.stdout.write(`Asking ${questions.length} questions from ${shownFile} of ${command.url}\n${tableHeader(idWidth)}\n`);
  let report;
  try {
    report = await runEvaluation({
      url: command.url,
      key: command.key,
      questions,
      timeoutMs: command.timeoutMs,
      onResult: (result, position) => process.stdout.write(`${tableRow(result, position, idWidth)}\n`),
      onNotice: (message) => process.stderr.write(`${message}\n`),
    });
  } catch (error) {
    if (!EvaluationAbortedError.isInstance(error)) throw error;
    process.stderr.write(`eval stopped: ${error.message}\n`);
    return 3;
  }
  process.stdout.write(`\n${summaryText(report).join('\n')}\n`);
  if (command.outFile) {
    writeFileSync(command.outFile, `${JSON.stringify({ questions_file: path.resolve(command.questionsFile), ...report }, null, 2)}\n`);
    process.stdout.write(`written: ${command.outFile}\n`);
  }
  const failed = report.summary.outcomes.wrong + report.summary.outcomes.error;
  return command.failOnWrong && failed > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const parsed = parseCommandLine(process.argv.slice(2), process.env);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n`);
    process.exit(2);
  }
  process.exitCode = await main(parsed.command);
}
