/**
 * search_knowledge: the passages of the skills' knowledge files most relevant to a question,
 * ranked by BM25, each with a citation (file § heading path).
 */
import { z } from 'zod';
import { defineTool, MAX_SEARCH_QUERY_CHARS, nameArgument, plural, ToolError } from '../../src/skills/api.ts';

export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 10;

const input = z.strictObject({
  query: z.string().min(1).max(MAX_SEARCH_QUERY_CHARS).describe('plain words, e.g. "why does consolidation differ from FI"'),
  limit: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS}`),
  skill: nameArgument().optional().describe("only this skill's knowledge"),
});

const passage = z.object({
  citation: z.string().describe('file § heading path; cite the passage by it'),
  skill: z.string(),
  file: z.string(),
  heading: z.string(),
  text: z.string(),
  score: z.number().describe('BM25 relevance, higher is better; only comparable within one search'),
});

const output = z.object({ query: z.string(), results: z.array(passage), note: z.string().optional() });

export const searchKnowledge = defineTool({
  name: 'search_knowledge',
  description: 'Passages of the domain rules (sources, eliminations, currencies, periods, data quality) most relevant to a question. Use it to explain causes and meanings; it holds no figures.',
  input,
  output,
  handler: (args, context) => {
    if (!context.knowledge) {
      throw new ToolError('internal_error', 'The knowledge base is not available in this service.', {
        hint: 'Answer from the data tools alone and say that the knowledge base could not be searched.',
      });
    }
    const results = context.knowledge.search(args.query, { limit: args.limit ?? DEFAULT_RESULTS, ...(args.skill !== undefined ? { skill: args.skill } : {}) });
    if (results.length > 0) return { query: args.query, results };
    const skills = context.knowledge.skills();
    return {
      query: args.query,
      results,
      note:
        skills.length === 0
          ? 'No skill ships knowledge files, so there is nothing to search.'
          : `No passage matches these words${args.skill ? ` in skill '${args.skill}'` : ''}. Try other or fewer words (a source name, 'eliminations', 'duplicated load', 'fiscal periods'); knowledge exists for: ${skills.join(', ')}.`,
    };
  },
  // The citations say what was found; the passages themselves can be searched again.
  summarize: (result) =>
    `search_knowledge "${result.query}": ${plural(result.results.length, 'passage')}${result.results.length ? ` (${result.results.map((r) => r.citation).join('; ')})` : result.note ? `. ${result.note}` : ''}`,
  present: (result) => ({
    caption: result.query,
    views: result.results.length
      ? [
          {
            title: 'Knowledge passages',
            subtitle: plural(result.results.length, 'passage'),
            rowsAt: ['results'],
            columns: [
              { key: 'citation', role: 'dimension' },
              { key: 'text', role: 'dimension' },
            ],
            notes: [],
            csvName: ['knowledge', result.query],
          },
        ]
      : [],
  }),
});
