/**
 * A short battery of questions made from a catalog, for `npm run catalog:check`: the questions
 * a newcomer asks first (which sources, a total, a breakdown by period, actual vs budget where
 * a plan sits beside actuals, duplicates), phrased with the catalog's own names so that a fresh
 * draft shows in a minute whether chat understands it. Only names from the catalog are used.
 */
import { periodDimension, type Catalog, type Source } from './catalog.ts';

/** One generated question and why it is asked. */
export interface CheckQuestion {
  question: string;
  /** What a working answer shows. */
  checks: string;
}

/** The dimension people call the company, if the source has one (by name or synonym). */
function companyOf(source: Source) {
  return [...source.dimensions.values()].find((d) => d.name === 'company' || d.synonyms.some((s) => /^(company|entity|company code)$/i.test(s)));
}

/** A value of the dimension to name in a question: its first catalog example or value name. */
function exampleOf(dimension: { examples: string[]; values: Map<string, string[]> }): string | undefined {
  return dimension.examples[0] ?? [...dimension.values.keys()][0];
}

/**
 * The questions for a catalog, in the order they are asked.
 *
 * @example
 * checkQuestions(catalog).map((q) => q.question)
 * // ['Which data sources can I ask about?', 'What is the total amount of gl_extract by company?', …]
 */
export function checkQuestions(catalog: Catalog): CheckQuestion[] {
  const questions: CheckQuestion[] = [{ question: 'Which data sources can I ask about?', checks: 'lists every source' }];
  const [first] = catalog.sources.values();
  if (!first) return questions;
  const measure = first.defaultMeasures[0] ?? [...first.measures.keys()][0]!;
  const company = companyOf(first);
  questions.push({ question: `What is the total ${measure} of ${first.name}${company ? ` by ${company.name}` : ''}?`, checks: `a total${company ? ` per ${company.name}` : ''}` });
  const period = periodDimension(first);
  const value = company ? exampleOf(company) : undefined;
  if (period) questions.push({ question: `Show the ${measure} of ${first.name} per month${company && value ? ` for ${company.name} ${value}` : ''}.`, checks: 'one figure per period' });
  // A plan beside its actuals: two sources over the same names, one implying version ACTUAL.
  const actual = [...catalog.sources.values()].find((s) => s.implied.version === 'ACTUAL');
  const plan = actual && [...catalog.sources.values()].find((s) => s !== actual && s.implied.version !== undefined && s.implied.version !== 'ACTUAL');
  if (actual && plan) questions.push({ question: `Compare ${actual.name} with ${plan.name}${company && value ? ` for ${company.name} ${value}` : ''}.`, checks: `actual vs ${plan.implied.version!.toLowerCase()}: both totals and the difference` });
  questions.push({ question: `Are there duplicate lines in ${(plan ?? first).name}?`, checks: 'a duplicate scan' });
  return questions;
}
