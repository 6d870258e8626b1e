/**
 * The skill SDK's tool inputs and errors: the string arguments every tool should use (they carry
 * the service's length caps), the `filters` argument, schema pieces shared by outputs, and the
 * error a handler throws for a mistake the model can fix. Re-exported by src/skills/api.ts.
 *
 * @example
 * import { z } from 'zod';
 * import { filtersArgument, nameArgument, ToolError } from '../../src/skills/api.ts';
 *
 * const input = z.strictObject({ source: nameArgument(), filters: filtersArgument() });
 * // in a handler: a mistake the model can fix, with a hint
 * throw new ToolError('unknown_value', "No company '4000'.", { hint: 'Companies: 1000, 2000.' });
 */
export { ToolError, type ToolErrorCode } from '../../errors/index.ts';
// Length caps every string argument should carry (the service refuses longer ones before a tool runs).
export { MAX_NAME_CHARS, MAX_ORDER_BY_CHARS, MAX_SEARCH_QUERY_CHARS, MAX_VALUE_CHARS, nameArgument, valueArgument } from '../../shared/inputLimits.ts';
export { filtersArgument } from '../arguments.ts';
export { refuseReservedKeys, type FilterInput } from '../../catalog/filters.ts';
// `{ name, unit }` of a measure in a tool's output; the catalog's comparison thresholds `{ absolute, percent }`.
export { measureReference } from '../outputSchemas.ts';
export { thresholdSchema } from '../../catalog/schema.ts';
// Wraps an input schema so the model is sent its compact form (descriptions shortened).
export { briefForModel } from '../modelDefinition.ts';
