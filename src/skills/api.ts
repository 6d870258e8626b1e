/**
 * The skill SDK: everything a skill may use, from this one module. A skill folder
 * (skills/<name>/) imports nothing else from src/ and nothing from another skill —
 * `npm run skill:check` fails one that does — so the service's internals can change without
 * breaking a skill. The exports, by topic (each file under sdk/ documents its topic with an
 * example):
 *
 * - tools and skills (sdk/tools.ts): defineTool, defineSkill, ToolContext, ToolDefinition;
 * - tool inputs and errors (sdk/inputs.ts): nameArgument, valueArgument, filtersArgument,
 *   ToolError, measureReference, thresholdSchema, briefForModel;
 * - the catalog (sdk/catalog.ts): findSource, findMeasure, findDimension, measureUnit,
 *   resolveFilters, toWhere, checkFilterValuesExist, describePeriod, closestMatch;
 * - data blocks (sdk/data.ts): select, merge and fold queries, defineReducer, distinctValues,
 *   roundAmount;
 * - the duplicate search (sdk/duplicates.ts): scanDuplicates, duplicateSelect;
 * - answer text (sdk/text.ts): formatAmount, formatPercent, textFormat, countText, listOf,
 *   describeFilters, failedStep, sideLabels;
 * - question forms for the offline model (sdk/questions.ts): defineQuestionForm, sourceFor,
 *   scopeOn, rankingOf;
 * - presentation in the web chat (sdk/presentation.ts): PresentationSpec and its parts;
 * - durable records (sdk/records.ts): ToolContext.records (SkillRecords), RecordConflictError,
 *   memoryRecords;
 * - schedules (sdk/schedules.ts): defineSchedule, everyInterval, ScheduleContext;
 * - pages beside the chat (sdk/pages.ts): SkillPage, a skill's web/ folder served at /app;
 * - testing (sdk/testing.ts): skillTestKit, temporaryDirectory, writeTestDatabase,
 *   writeTestCatalog, openTestData.
 *
 * `npm run skill:new -- <name>` scaffolds a skill; docs/skills.md is the full contract.
 *
 * @example
 * // skills/count_rows/countRows.ts
 * import { z } from 'zod';
 * import { aggregateOf, defineTool, findMeasure, findSource, nameArgument, resolveFilters, toWhere, filtersArgument } from '../../src/skills/api.ts';
 *
 * export const totalAmount = defineTool({
 *   name: 'total_amount',
 *   description: 'Total of a measure in one source, with optional filters.',
 *   input: z.strictObject({ source: nameArgument(), measure: nameArgument(), filters: filtersArgument() }),
 *   output: z.object({ total: z.number().nullable(), sql: z.string() }),
 *   async handler({ source: name, measure: measureName, filters }, { catalog, data, signal }) {
 *     const source = findSource(catalog, name);
 *     const measure = findMeasure(source, measureName);
 *     const where = toWhere(resolveFilters(source, filters).conditions);
 *     const { rows, sql } = await data.run({ kind: 'select', table: source.table, connection: source.connection, where,
 *       aggregates: [aggregateOf('total', { function: measure.aggregation, column: measure.column })] }, signal);
 *     return { total: (rows[0]?.total as number | null) ?? null, sql };
 *   },
 * });
 */
export { defineSkill, defineTool } from './sdk/tools.ts';
export type { AnyToolDefinition, KnowledgeBase, KnowledgeConcerns, KnowledgePassage, SessionState, SkillModule, SkillNotification, ToolCallResult, ToolCaller, ToolContext, ToolDefinition } from './sdk/tools.ts';
export * from './sdk/inputs.ts';
export * from './sdk/catalog.ts';
export * from './sdk/data.ts';
export { duplicateSelect, scanDuplicates } from './sdk/duplicates.ts';
export type { DuplicateGroup, DuplicateOutcome, DuplicatePattern, DuplicatePlan, NamedColumn } from './sdk/duplicates.ts';
export * from './sdk/text.ts';
export * from './sdk/questions.ts';
export * from './sdk/presentation.ts';
export * from './sdk/testing.ts';
export { memoryRecords, RecordConflictError, type SkillRecord, type SkillRecords } from './sdk/records.ts';
export type { SkillPage } from './sdk/pages.ts';
export { defineSchedule, everyInterval, type ScheduleContext, type ScheduleDefinition } from './sdk/schedules.ts';
export { cronSchedule, dailyAt, describeRule, isTimeZone, monthlyOnWorkingDay, nextOccurrence, scheduleRuleSchema, type RuleOptions, type ScheduleRule } from './sdk/scheduleRules.ts';
