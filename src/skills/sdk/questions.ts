/**
 * The skill SDK's question forms: how the embedded offline model (no LLM) answers a skill's
 * questions. A form scores how well it fits an understood question (sources, filters,
 * dimensions, intents the service has already read from the words) and plans the tool calls,
 * then writes the answer from their results. The helpers pick a source that can answer, check
 * filters against what a source holds, and read rankings ("top 3 accounts", "lowest month").
 * Re-exported by src/skills/api.ts; docs/skills.md explains scores.
 *
 * @example
 * import { defineQuestionForm, failedStep, sourceFor } from '../../src/skills/api.ts';
 *
 * export const totalForm = defineQuestionForm({
 *   name: 'total',
 *   examples: ['Total amount in fi_reporting for company 1000'],
 *   score: (q, catalog) => (q.intents.has('total') && sourceFor(q, catalog) ? 2 : 0),
 *   plan: (q, done, { catalog }) =>
 *     done.length === 0
 *       ? { toolCalls: [{ name: 'query_source', args: { source: sourceFor(q, catalog), filters: q.filters } }] }
 *       : (failedStep(done) ?? { answer: `Total: ${done[0]!.result.rows[0].amount}` }),
 * });
 */
export { defineQuestionForm } from '../questionForms.ts';
export type { CompletedCall, FilterValue, FormContext, PlanStep, PlannedCall, QuestionForm, Understanding } from '../questionForms.ts';
export { commonMeasure, impliedVersionPair, scopeOn, sourceFor, sourcesWith, versionPartner } from '../questionScope.ts';
export { rankingOf, shapeIntents, type Ranking } from '../questionShapes.ts';
