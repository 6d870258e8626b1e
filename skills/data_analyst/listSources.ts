/**
 * list_sources: what data exists, what each column means, which measures are in which
 * currency, and which sources can be compared on which common dimensions.
 */
import { z } from 'zod';
import { commonDimensions, defineTool, measureUnit, type Catalog } from '../../src/skills/api.ts';
import { presentSources } from './presentations.ts';
import { thresholdsSchema } from './schemas.ts';
import { describeSources } from './summaries.ts';

const named = z.object({ name: z.string(), description: z.string().optional() });

const output = z.object({
  sources: z.array(
    named.extend({
      aliases: z.array(z.string()).optional(),
      dimensions: z.array(named.extend({ format: z.string().optional(), examples: z.array(z.unknown()).optional(), value_names: z.record(z.string(), z.string().optional()).optional() })),
      measures: z.array(named.extend({ aggregation: z.string(), unit: z.string() })),
      default_measures: z.array(z.string()),
      default_filters: z.record(z.string(), z.unknown()),
      implied: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  comparable_pairs: z.array(
    z.object({ source_a: z.string(), source_b: z.string(), common_dimensions: z.array(z.string()), default_align_on: z.array(z.string()), common_measures: z.array(z.string()) }),
  ),
  group_currency: z.string().nullable(),
  comparison_thresholds: thresholdsSchema,
  not_held: z.unknown(),
});

export const listSources = defineTool({
  name: 'list_sources',
  description: 'The sources you can ask about: dimensions, measures, default filters, comparable pairs. Call it first when unsure of names.',
  // Cheap and orienting: bound from a question's first call, before data_analyst is loaded.
  alwaysBound: true,
  input: z.strictObject({}),
  output,
  handler: (_input, { catalog }) => describeCatalog(catalog),
  summarize: describeSources,
  present: presentSources,
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
