/**
 * A helper for skills: when a query comes back empty, finds out why. A filter value that does
 * not exist at all is an error the model can fix (with the valid values and the closest one);
 * a combination of existing values that matches nothing is an honest empty answer.
 */
import type { Source } from '../catalog/catalog.ts';
import type { Condition } from '../catalog/filters.ts';
import { closestMatch, closestName } from '../shared/closestMatch.ts';
import { distinctValues, valueExists } from '../data/lookups.ts';
import { ToolError, type ToolContext } from './api.ts';

/** Valid values listed when a filter value does not exist. */
const VALUE_CHOICES_LISTED = 50;

/**
 * @throws ToolError unknown_value for the first filter value absent from the source.
 */
export async function checkFilterValuesExist(source: Source, conditions: readonly Condition[], context: ToolContext): Promise<void> {
  for (const condition of conditions) {
    if (condition.kind !== 'in') continue;
    const { column, name } = condition.dimension;
    for (const value of condition.values) {
      if (await valueExists(context.data, source, column, value, context.signal)) continue;
      const known = (await distinctValues(context.data, source, column, VALUE_CHOICES_LISTED + 1, context.signal)).filter((v): v is string => v !== null);
      const listed = known.slice(0, VALUE_CHOICES_LISTED);
      // A business name from the catalog ("Contoso UK" for company 3000) points to its code.
      const named = value === null ? undefined : codeNamed(source, name, value);
      const closest = named ?? (value === null ? undefined : closestMatch(value, listed));
      const shown = value === null ? 'blank' : `'${value}'`;
      throw new ToolError('unknown_value', `No row of '${source.name}' has ${name} = ${shown}.`, {
        hint: `${named ? `'${value}' is the catalog's name of ${name} '${named}': filter by the code. ` : closest ? `Did you mean '${closest}'? ` : ''}Values of ${name}: ${listed.map((v) => `'${v}'`).join(', ')}${known.length > listed.length ? ', …' : ''}.`,
        details: { source: source.name, dimension: name, value, choices: listed, closest: closest ?? null },
      });
    }
  }
}

/** The code whose catalog names (value labels) match `text`, exactly or misspelt word for word. */
function codeNamed(source: Source, dimension: string, text: string): string | undefined {
  const names = source.dimensions.get(dimension)?.values;
  if (!names?.size || text.length > 200 || /^\d+$/.test(text)) return undefined;
  const byName = new Map([...names].flatMap(([code, labels]) => labels.map((label) => [label.toLowerCase(), code] as const)));
  const exact = byName.get(text.trim().toLowerCase());
  if (exact) return exact;
  const closest = closestName(text, [...byName.keys()]);
  return closest === undefined ? undefined : byName.get(closest);
}
