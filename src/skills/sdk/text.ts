/**
 * The skill SDK's answer text: amounts, percents, periods, filters and counts written the way
 * every answer of the service writes them, in the caller's locale, plus the lines the offline
 * model's answers share (a failed step, the two sides of a comparison). Used by `summarize`,
 * question forms' answers and notes in tool results. Re-exported by src/skills/api.ts.
 *
 * @example
 * import { countText, describeFilters, formatAmount, formatPercent, listOf, textFormat } from '../../src/skills/api.ts';
 *
 * formatAmount(-3646.01, 'EUR');                              // '-3,646.01 EUR'
 * formatPercent(-2.16, { signed: true });                     // '-2.2%'
 * countText(3, 'document');                                   // '3 documents'
 * listOf(['1000', '2000', '3000']);                           // '1000, 2000 and 3000'
 * describeFilters({ company: '1000', version: 'BUDGET' }, ['version']); // 'company 1000'
 * textFormat('de-DE').amount(110000, 'EUR');                  // '110.000,00 EUR'
 */
export { formatAmount, formatPercent } from '../../shared/format.ts';
export { countText, describeFilters, errorAnswer, failedStep, listOf, sideLabels, textFormat, type PeriodNaming, type TextFormat } from '../answerText.ts';
// "3 rows", "Group account" from group_account: the words the web chat and the answers share.
export { humanize, plural } from '../presentation.ts';
// A tool result (or any JSON value) read as an object, and its type.
export { isObject, type Json } from '../../shared/json.ts';
