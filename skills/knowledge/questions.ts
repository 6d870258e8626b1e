/**
 * The questions the embedded offline model answers with search_knowledge: "what is a delta
 * load?", "how does currency translation work?", "what does ADJ_MANUAL mean?". The answer
 * quotes the best passage and cites where it comes from; it never states a figure.
 */
import { errorAnswer } from '../../src/skills/answerText.ts';
import { defineQuestionForm } from '../../src/skills/api.ts';

const MAX_QUOTED_CHARACTERS = 700;

export const knowledgeForm = defineQuestionForm({
  name: 'search_knowledge',
  examples: ['What is a delta load?', 'How does currency translation work in consolidation?'],
  // A question about meaning, not about figures: no period or company to read figures for.
  score: (q) => (q.intents.has('meaning') && q.sources.length < 2 && q.filters.period === undefined && q.filters.company === undefined ? 6 : 0),
  freeText: true,
  plan: (q, done) => {
    if (done.length === 0) return { toolCalls: [{ name: 'search_knowledge', args: { query: q.text.slice(0, 500), limit: 2 } }] };
    const result = done[0]!.result;
    if (result.error) return { answer: errorAnswer(done[0]!.name, result.error) };
    const best = result.results?.[0];
    if (!best) return { answer: `I found nothing about that in the knowledge files. ${result.hint ?? ''}`.trim() };
    const text = best.text.length > MAX_QUOTED_CHARACTERS ? `${best.text.slice(0, MAX_QUOTED_CHARACTERS).replace(/\s+\S*$/, '')} …` : best.text;
    return { answer: `${text}\n(Source: ${best.citation})` };
  },
});

export const questions = [knowledgeForm];
