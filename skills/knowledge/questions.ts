/**
 * The questions the embedded offline model answers with search_knowledge: "what is a delta
 * load?", "how does currency translation work?", "what does ADJ_MANUAL mean?". The answer
 * quotes the best passage and cites where it comes from; it never states a figure.
 */
import { defineQuestionForm, failedStep } from '../../src/skills/api.ts';

const MAX_QUOTED_CHARACTERS = 700;

export const knowledgeForm = defineQuestionForm({
  name: 'search_knowledge',
  examples: ['What is a delta load?', 'How does currency translation work in consolidation?'],
  // A question about meaning, not about figures: no period or company to read figures for. A
  // question of words it cannot place and nothing to read figures for is a topic to look up.
  score: (q) => {
    const noScope = q.filters.company === undefined && (q.filters.period === undefined || (typeof q.filters.period === 'string' && !/^\d{7}$/.test(q.filters.period)));
    if (q.intents.has('meaning') && noScope) return 6;
    return q.unknown.length > 0 && q.sources.length === 0 && Object.keys(q.filters).length === 0 && q.measure === undefined ? 2 : 0;
  },
  freeText: true,
  plan: (q, done) => {
    if (done.length === 0) return { toolCalls: [{ name: 'search_knowledge', args: { query: q.text.slice(0, 500), limit: 2 } }] };
    const failure = failedStep(done);
    if (failure) return failure;
    const result = done[0]!.result;
    const best = result.results?.[0];
    if (!best) return { answer: 'I found nothing about that in the knowledge files, and it is not a question about the data I can read. Ask "what can you do?" to see the questions I answer.' };
    const text = best.text.length > MAX_QUOTED_CHARACTERS ? `${withoutLastWord(best.text.slice(0, MAX_QUOTED_CHARACTERS))} …` : best.text;
    return { answer: `${text}\n(Source: ${best.citation})` };
  },
});

export const questions = [knowledgeForm];

/**
 * Text without its last (possibly cut) word and the blanks before it. `/\s+\S*$/` did this in
 * time quadratic in a run of blanks; one search for the last blank is linear.
 */
function withoutLastWord(text: string): string {
  const blank = text.search(/\s\S*$/);
  return blank === -1 ? text : text.slice(0, blank).trimEnd();
}
