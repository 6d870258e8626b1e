/**
 * list_sources: what data exists, what each column means, which measures are in which
 * currency, and which sources can be compared on which common dimensions.
 */
import { z } from 'zod';
import { commonDimensions, measureUnit, type Catalog } from '../../src/catalog/catalog.ts';
import { defineTool } from '../../src/skills/api.ts';

export const listSources = defineTool({
  name: 'list_sources',
  description:
    'List every data source with its description, dimensions (with example values), measures (with aggregation and unit or currency), default filters, and which pairs of sources can be compared on which common dimensions. Call it first when unsure of names.',
  input: z.strictObject({}),
  handler: (_input, { catalog }) => describeCatalog(catalog),
});

/** The catalog as the model and dashboards see it. */
export function describeCatalog(catalog: Catalog) {
  const sources = [...catalog.sources.values()];
  const comparablePairs = sources.flatMap((a, index) =>
    sources.slice(index + 1).flatMap((b) => {
      const common = commonDimensions(a, b);
      if (common.length === 0) return [];
      return [
        {
          source_a: a.name,
          source_b: b.name,
          common_dimensions: common,
          default_align_on: catalog.defaultAlignOn.filter((d) => common.includes(d)),
          common_measures: [...a.measures.keys()].filter((m) => b.measures.has(m)),
        },
      ];
    }),
  );
  return {
    sources: sources.map((source) => ({
      name: source.name,
      description: source.description,
      aliases: source.aliases,
      dimensions: [...source.dimensions.values()].map((d) => ({
        name: d.name,
        description: d.description,
        ...(d.type === 'period' ? { format: 'YYYYPPP' } : {}),
        examples: d.examples,
        // Business names of values ("3000": "Contoso UK Ltd"), so any model maps names to codes.
        ...(d.values.size ? { value_names: Object.fromEntries([...d.values].map(([code, names]) => [code, names[0]])) } : {}),
      })),
      measures: [...source.measures.values()].map((m) => ({
        name: m.name,
        description: m.description,
        aggregation: m.aggregation,
        unit: measureUnit(m),
      })),
      default_measures: source.defaultMeasures,
      default_filters: source.defaultFilters,
      ...(Object.keys(source.implied).length ? { implied: source.implied } : {}),
    })),
    comparable_pairs: comparablePairs,
    group_currency: catalog.groupCurrency ?? null,
    comparison_thresholds: catalog.thresholds,
    not_held: catalog.notHeld,
  };
}
