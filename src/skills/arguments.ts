/**
 * Argument definitions the skills share, described once in the few words a model needs: every
 * tool definition is sent on each call while its tool is bound, so the same prose repeated in
 * five tools costs five times. The validation is the catalog's own (src/catalog/filters.ts).
 */
import { filtersSchema } from '../catalog/filters.ts';

/** How filters read, in one line; the forms in full belong in a skill's SKILL.md. */
export const FILTERS_ARGUMENT_DESCRIPTION = '{dimension: value}: "1000", ["1000","2000"], {"from":…,"to":…} or null; periods also as "December 2024", "Q4 2024"';

/**
 * An optional filters argument (dimension → value, list, range or null), validated as the
 * catalog resolves filters.
 * @example
 * const input = z.strictObject({ source: nameArgument(), filters: filtersArgument() });
 * const sideA = filtersArgument('side a only, e.g. {"version":"ACTUAL"}');
 */
export function filtersArgument(description: string = FILTERS_ARGUMENT_DESCRIPTION) {
  return filtersSchema.optional().describe(description);
}
