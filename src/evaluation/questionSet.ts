/**
 * The question-file format of `npm run eval`: a YAML or JSON list of questions, each with the
 * reply a careful analyst would give (figures, a question back, a refusal, or a knowledge file
 * cited). The project's own set is evaluation/questions.yaml; a company writes the same format
 * for its own data. Loading validates every entry with zod and reports each problem with its
 * file, line and question, so a hand-written file can be fixed in one pass.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { projectRoot } from '../config/config.ts';
import { AnalystError } from '../errors/index.ts';

/** The project's question set on the bundled sample data; `npm run eval` asks it by default. */
export const projectQuestionFile = path.join(projectRoot, 'evaluation', 'questions.yaml');

/**
 * An amount as the answers print it (en-US, the locale /chat uses when none is sent):
 * thousands commas and two decimals, '-' for negatives.
 */
const AMOUNT_FORMAT = /^-?\d{1,3}(?:,\d{3})*\.\d{2}$/;

/** What a correct reply to a question looks like. */
export type Expectation =
  /**
   * Correct when the answer contains every figure (as printed, e.g. '443,100.00') and every
   * mention (a word, case-insensitive: 'BUDGET', 'fi_reporting') and states none of the `never`
   * amounts. `figures` may be empty when `mentions` say what the reply is (a list of sources, the
   * versions a source holds instead of one asked for); `never: ['0.00']` catches a zero side
   * shown for a value the source does not hold.
   */
  | { kind: 'answer'; figures: string[]; mentions?: string[]; never?: string[]; checks?: FigureCheck[] }
  /** Truly ambiguous, or a constraint that cannot be read: the right reply is a question back (a decline is also acceptable), never a figure. */
  | { kind: 'clarify'; reason: string }
  /** Out of scope (data the catalog does not hold) or an action the service must refuse: never a figure. */
  | { kind: 'decline'; reason: string }
  /** A "what is / how does" question: the answer must cite this knowledge file (path as the answer prints it). */
  | { kind: 'knowledge'; cites: string };

/**
 * An independent check of one expected figure: `sql` returns a single value which, formatted
 * with 2 decimals and thousands commas, equals `figure`. The evaluation does not run it; the
 * project's own test runs its checks on data/sample.db, so the exam is checked against the data.
 */
export interface FigureCheck {
  figure: string;
  sql: string;
}

/** One question of a set. */
export interface EvaluationQuestion {
  /** Short stable name, unique in the set: reports and comparisons refer to it. */
  id: string;
  /** The question exactly as the analyst types it. */
  question: string;
  /** Asked in the same conversation as the previous question in the list. */
  followUp?: boolean;
  expect: Expectation;
  /** Free labels (the pattern it exercises: 'typo', 'follow-up', 'out of scope', …); empty when none. */
  tags: string[];
}

const questionFileMarker = Symbol.for('analyst.error.question-file');

/** A question file that cannot be used; the message lists every problem, one a line. */
export class QuestionFileError extends AnalystError {
  readonly [questionFileMarker] = true;

  static override isInstance(error: unknown): error is QuestionFileError {
    return typeof error === 'object' && error !== null && questionFileMarker in error;
  }
}

/** A zod error message that says "is required" when the field is missing, `message` otherwise. */
const unlessMissing = (message: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message);

/** For an object with unknown fields: names them and the fields it has (a typo such as follow_up is the usual cause). */
const fieldsOf = (fields: string, message: string) => (issue: { code?: string; keys?: string[]; input?: unknown }) => {
  if (issue.code === 'unrecognized_keys') return `unknown field ${(issue.keys ?? []).map((key) => `'${key}'`).join(', ')}: ${fields}`;
  return unlessMissing(message)(issue);
};

const text = z.string({ error: unlessMissing('must be text') }).regex(/\S/, { error: 'must not be empty' });
const amount = z
  .string({ error: unlessMissing("must be text (quote it in YAML: '443,100.00')") })
  .regex(AMOUNT_FORMAT, { error: "must be an amount as the answers print it: '443,100.00' or '-3,646.01' (thousands commas, two decimals)" });

const expectationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject(
      {
        kind: z.literal('answer'),
        figures: z.array(amount, { error: unlessMissing("must be a list of amounts, e.g. ['443,100.00']") }),
        mentions: z.array(text, { error: "must be a list of words the answer must contain, e.g. ['ACTUAL', 'BUDGET']" }).optional(),
        never: z.array(amount, { error: "must be a list of amounts the answer must not state, e.g. ['0.00']" }).optional(),
        checks: z.array(z.strictObject({ figure: amount, sql: text }, { error: fieldsOf('a check has figure and sql', 'must be { figure, sql }') })).optional(),
      },
      { error: fieldsOf('an answer has figures (and optionally mentions, never and checks)', 'must be an expected reply') },
    ).refine((answer) => answer.figures.length > 0 || (answer.mentions?.length ?? 0) > 0, {
      path: ['figures'],
      error: 'must list at least one figure (or give mentions: the words a reply without figures must contain)',
    }),
    z.strictObject({ kind: z.literal('clarify'), reason: text }, { error: fieldsOf('clarify has a reason', 'must be an expected reply') }),
    z.strictObject({ kind: z.literal('decline'), reason: text }, { error: fieldsOf('decline has a reason', 'must be an expected reply') }),
    z.strictObject({ kind: z.literal('knowledge'), cites: text }, { error: fieldsOf('knowledge has cites', 'must be an expected reply') }),
  ],
  { error: unlessMissing('must have a kind: answer (with figures), clarify (with a reason), decline (with a reason) or knowledge (with cites)') },
);

const questionSchema = z.strictObject(
  {
    id: text,
    question: text,
    followUp: z.boolean({ error: 'must be true or false' }).optional(),
    expect: expectationSchema,
    tags: z.array(text, { error: 'must be a list of labels' }).default([]),
  },
  { error: fieldsOf('a question has id, question, expect, followUp and tags', 'must be a question: { id, question, expect, followUp?, tags? }') },
);

const questionSetSchema = z.array(questionSchema, { error: 'must be a list of questions (a YAML list, or a JSON array)' });

/**
 * Reads and validates a question file (YAML or JSON; JSON is valid YAML).
 * @throws QuestionFileError listing each problem as `file:line question N (id): path: message`.
 * @example
 * const questions = loadQuestionSet(projectQuestionFile); // the project's 240 questions
 */
export function loadQuestionSet(file: string): EvaluationQuestion[] {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    throw new QuestionFileError(`Question file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Pass --questions with a YAML or JSON file.`);
  }
  return parseQuestionSet(content, file);
}

/**
 * Validates the text of a question file; `file` names it in errors.
 * @throws QuestionFileError listing each problem, one a line.
 * @example
 * parseQuestionSet("- id: total\n  question: FI total for 1000 in Dec-24?\n  expect: { kind: answer, figures: ['443,100.00'] }", 'mine.yaml');
 */
export function parseQuestionSet(content: string, file: string): EvaluationQuestion[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(content, { lineCounter, prettyErrors: true });
  if (document.errors.length > 0) {
    const lines = document.errors.map((error) => `  ${file}:${error.linePos?.[0]?.line ?? '?'}: ${error.message.split('\n')[0]}`);
    throw new QuestionFileError(`Question file ${file} is not valid YAML or JSON:\n${lines.join('\n')}`);
  }
  const raw: unknown = document.toJS();
  const parsed = questionSetSchema.safeParse(raw);
  const where = (at: (string | number)[]) => `${file}:${lineOf(document, lineCounter, at)} ${describePath(raw, at)}`;
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const at = issue.path as (string | number)[];
      // An unknown field is reported at its own line, under the object's path.
      const line = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? `${file}:${lineOf(document, lineCounter, [...at, issue.keys[0]])} ${describePath(raw, at)}` : where(at);
      return `  ${line}: ${issue.message}`;
    });
    throw new QuestionFileError(`Question file ${file} is invalid:\n${lines.join('\n')}`);
  }
  const questions: EvaluationQuestion[] = parsed.data;
  const problems = setProblems(questions).map((problem) => `  ${where(problem.path)}: ${problem.message}`);
  if (problems.length > 0) throw new QuestionFileError(`Question file ${file} is invalid:\n${problems.join('\n')}`);
  return questions;
}

/** Problems of the set as a whole: no questions, repeated ids, a follow-up with nothing to follow. */
function setProblems(questions: EvaluationQuestion[]): { path: (string | number)[]; message: string }[] {
  if (questions.length === 0) return [{ path: [], message: 'holds no questions' }];
  const problems: { path: (string | number)[]; message: string }[] = [];
  if (questions[0]?.followUp) problems.push({ path: [0, 'followUp'], message: 'the first question cannot be a follow-up: there is no conversation to follow' });
  const firstIndex = new Map<string, number>();
  questions.forEach((question, index) => {
    const earlier = firstIndex.get(question.id);
    if (earlier === undefined) firstIndex.set(question.id, index);
    else problems.push({ path: [index, 'id'], message: `repeats the id of question ${earlier + 1}; ids must be unique` });
  });
  return problems;
}

/** "question 3 (id 'x') expect.figures.0", or "(file)" for the whole document. */
function describePath(raw: unknown, at: (string | number)[]): string {
  const [index, ...rest] = at;
  if (typeof index !== 'number') return '(file)';
  const entry = Array.isArray(raw) ? raw[index] : undefined;
  const id = entry && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string' ? ` (id '${(entry as { id: string }).id}')` : '';
  return `question ${index + 1}${id}${rest.length > 0 ? ` ${rest.join('.')}` : ''}`;
}

/** The line of the deepest node of `at` that exists in the document. */
function lineOf(document: Document, lineCounter: LineCounter, at: (string | number)[]): number | string {
  for (let depth = at.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? document.contents : document.getIn(at.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return '?';
}
