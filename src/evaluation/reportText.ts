/**
 * The evaluation as a terminal reads it: one table line per question as it is answered, then
 * the summary. Plain text, fixed columns, so it stays readable in a CI log and greppable by id.
 */
import type { EvaluationReport, ExpectedReply, QuestionResult } from './runEvaluation.ts';
import type { EvaluationSummary, OutcomeCounts } from './summary.ts';

/** Longest answer text quoted in the summary; the --out JSON keeps the whole answer. */
const QUOTED_ANSWER_LENGTH = 400;

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * The table's column heading, sized for the longest id.
 * @example
 * tableHeader(30) // '   #  id                              expects    outcome      latency  calls'
 */
export function tableHeader(idWidth: number): string {
  return `${'#'.padStart(4)}  ${'id'.padEnd(idWidth)}  ${'expects'.padEnd(9)}  ${'outcome'.padEnd(9)}  ${'latency'.padStart(10)}  ${'calls'.padStart(5)}  ${'figures'.padStart(9)}`;
}

/**
 * One question's line: position, id, expected kind, outcome, client latency, model calls.
 * @example
 * tableRow(result, 1, 30) // '   1  fi-de-dec-result-by-name        answer     correct        12.5 ms      2'
 */
export function tableRow(result: QuestionResult, position: number, idWidth: number): string {
  const latency = `${result.latency_ms.toFixed(1)} ms`;
  const calls = result.model_calls === null ? '-' : String(result.model_calls);
  // Verified/all amounts and percentages; "!" marks an answer with a figure no tool result backs.
  const figures = result.figures ? `${result.figures.verified}/${result.figures.verified + result.figures.unverified}${result.figures.unverified ? '!' : ''}` : '-';
  const line = `${String(position).padStart(4)}  ${result.id.padEnd(idWidth)}  ${result.expected.kind.padEnd(9)}  ${result.outcome.padEnd(9)}  ${latency.padStart(10)}  ${calls.padStart(5)}  ${figures.padStart(9)}`;
  if (result.error) return `${line}  ${result.error}`;
  return result.figures?.unverified ? `${line}  unverified: ${result.figures.unverified_texts.join(', ')}` : line;
}

/**
 * The summary after the table, one fact a line.
 * @example
 * summaryText(report).join('\n')
 */
export function summaryText(report: EvaluationReport): string[] {
  const summary = report.summary;
  const model = report.model ? `${report.model.provider} model ${report.model.name}${report.model.base_url ? ` at ${report.model.base_url}` : ''}` : 'model not reported';
  const lines = [
    `Summary: ${summary.questions} questions asked of ${report.url} (${model})`,
    `outcomes: ${countsText(summary.outcomes)}`,
    `accuracy: ${accuracyText(summary)}`,
    'by expected reply:',
    ...Object.entries(summary.by_expectation)
      .filter(([, counts]) => counts.questions > 0)
      .map(([kind, counts]) => `  ${kind.padEnd(9)} ${String(counts.questions).padStart(4)} questions: ${countsText(counts)}`),
    `wrong answers: ${summary.wrong_answers.length === 0 ? 'none' : summary.wrong_answers.length}`,
    ...summary.wrong_answers.flatMap((wrong) => [
      `  - ${wrong.id}: ${wrong.question}`,
      `      expected: ${expectedText(wrong.expected)}`,
      `      answer:   ${quoted(wrong.answer)}`,
    ]),
    `errors (no answer): ${summary.errors.length === 0 ? 'none' : summary.errors.length}`,
    ...summary.errors.map((failure) => `  - ${failure.id}: ${failure.error}`),
    `model calls: ${numberFormat.format(summary.model_calls.total)}${summary.model_calls.per_answer === null ? '' : ` (${summary.model_calls.per_answer} per answered question)`}; unfinished (model-call budget spent): ${summary.unfinished}`,
    `tokens: input ${numberFormat.format(summary.tokens.input)}, output ${numberFormat.format(summary.tokens.output)}`,
    `latency: ${latencyText(summary)}`,
    `figures: ${figuresText(summary)}`,
  ];
  return lines;
}

function countsText(counts: OutcomeCounts): string {
  return `correct ${counts.correct}, clarified ${counts.clarified}, declined ${counts.declined}, wrong ${counts.wrong}, error ${counts.error}`;
}

function accuracyText(summary: EvaluationSummary): string {
  const { correct, of, share, denominator } = summary.accuracy;
  if (share === null) return `none to measure (no ${denominator})`;
  return `${(share * 100).toFixed(1)}% (${correct} correct of ${of} ${denominator})`;
}

function latencyText(summary: EvaluationSummary): string {
  const { answered, p50, p95, max } = summary.latency_ms;
  if (p50 === null || p95 === null || max === null) return 'no answered question';
  return `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms (${answered} answered questions, measured by this client)`;
}

function expectedText(expected: ExpectedReply): string {
  if (expected.kind === 'answer') return [...expected.figures, ...(expected.mentions ?? []).map((word) => `'${word}'`)].join(', ');
  if (expected.kind === 'knowledge') return `a citation of ${expected.cites}`;
  return `${expected.kind === 'clarify' ? 'a question back' : 'a refusal'}, no figure (${expected.reason})`;
}

/** The answer on one line, cut to QUOTED_ANSWER_LENGTH. */
function quoted(answer: string): string {
  const oneLine = answer.replace(/\s+/g, ' ').trim();
  return oneLine.length > QUOTED_ANSWER_LENGTH ? `${oneLine.slice(0, QUOTED_ANSWER_LENGTH)}…` : oneLine;
}

function figuresText(summary: EvaluationSummary): string {
  const figures = summary.figures;
  if (!figures) return 'not reported by the instance (ANSWER_CHECK=off, or a version without receipts)';
  const share = figures.share_verified === null ? 'none stated' : `${(figures.share_verified * 100).toFixed(1)}% verified`;
  return `${numberFormat.format(figures.verified)} verified, ${numberFormat.format(figures.unverified)} unverified (${share}); ${figures.answers_with_unverified} answers with an unverified figure; ${figures.repaired} answers repaired`;
}
