/**
 * Question forms: how a skill teaches the embedded offline model the questions it answers.
 * The offline model's core reads a question into an `Understanding` (sources, measure,
 * filters, grouping and intent words, all matched against the catalog and the forms' own
 * vocabulary); each form scores how well it fits and plans the tool calls and the answer.
 * The core knows no tool by name: a new skill's questions are answered by adding its forms.
 */
import type { Catalog } from '../catalog/catalog.ts';

export type FilterValue = string | string[] | { from: string; to: string };

/** What the offline model understood of one question (or of a follow-up merged with the question before). */
export interface Understanding {
  /** The question as asked. */
  text: string;
  /** Sources in the order the question names them. */
  sources: string[];
  /** The measure asked for, when one was named. */
  measure: string | undefined;
  /** Filters by logical dimension name: company, period, group_account, version, … */
  filters: Record<string, FilterValue>;
  /** Dimensions to group by ("by company", "monthly", "split by account"). */
  groupBy: string[];
  /** Dimensions named anywhere in the question, in order ("a blank profit centre" → profit_center). */
  dimensions: string[];
  /** Values of the version dimension named, in order (ACTUAL, BUDGET, …): comparisons of versions read them. */
  versions: string[];
  /** Periods named as separate points, in order ("November vs December"). */
  periods: string[];
  /** Intent words found, by intent name: the core's (why, net, …) and the forms' own. */
  intents: ReadonlySet<string>;
  /** Words it could not place. A form that is not free-text never answers while these remain. */
  unknown: string[];
  /**
   * How many a ranking asks for: "top 3 accounts" → 3, "the five largest months" → 5; unset
   * when no number stands next to a ranking word. The ranking word itself reaches a form only
   * as one of its intent phrases (declare "top", "highest", … in `intents`): a meaning-changing
   * word no form declares is asked back by the core (src/model/offline/words.ts, meaningWords).
   */
  count?: number;
  /**
   * Values left out, by dimension, when no filter of that dimension could take it: "excluding
   * intercompany" → { group_account: ['G4100000', 'G5100000'] }. (A list filter loses the
   * values instead: "expenses except depreciation" reads four accounts.)
   */
  excluded?: Record<string, string[]>;
}

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

/** A tool call of this turn with its parsed result (`result.error` when it failed). */
export interface CompletedCall extends PlannedCall {
  result: any;
}

/** The next step: tool calls to make, the answer, or a question back when a slot is missing. */
export type PlanStep = { toolCalls: PlannedCall[] } | { answer: string } | { clarify: string };

export interface FormContext {
  catalog: Catalog;
  /** BCP 47 locale the answer's numbers are written in (default en-US). */
  locale: string;
  /** Names of the tools the model may call now. */
  tools: readonly string[];
}

export interface QuestionForm {
  /** Unique name, e.g. "compare_two_sources". */
  name: string;
  /** Intent words this form listens for: intent → phrases ("compare" → ["compare", "vs", "reconcile"]). */
  intents?: Record<string, string[]>;
  /** Example questions, listed when someone asks what the offline model can do. */
  examples: string[];
  /** How well the form fits the question; 0 means not at all, the highest score answers. */
  score(question: Understanding, catalog: Catalog): number;
  /** True when words it cannot place are the point (a knowledge search): they do not ask back. */
  freeText?: boolean;
  /**
   * True when it reads "this month", "last month" itself (its tool knows the date: the checks'
   * latest runs); any other form asks back which period is meant, as the data has no today.
   */
  readsRelativePeriods?: boolean;
  /** True when it leaves out the question's `excluded` values; any other form asks back rather than answer with them in. */
  readsExclusions?: boolean;
  /** The next step, given the calls already answered in this turn. */
  plan(question: Understanding, done: readonly CompletedCall[], context: FormContext): PlanStep;
}

/**
 * Declares a question form; the identity function, for typing and discoverability.
 *
 * @example
 * export const totals = defineQuestionForm({
 *   name: 'total', examples: ['Total amount in fi_reporting for company 1000'],
 *   score: (q) => (q.sources.length === 1 ? 1 : 0),
 *   plan: (q, done) => (done.length ? { answer: `${done[0]!.result.rows.length} rows` } : { toolCalls: [{ name: 'count_rows', args: { source: q.sources[0] } }] }),
 * });
 */
export function defineQuestionForm(form: QuestionForm): QuestionForm {
  return form;
}
