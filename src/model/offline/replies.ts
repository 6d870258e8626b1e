/**
 * The offline model's own replies, which need no tool: what it can do (from the forms'
 * examples), a question back that says what it understood and which words it could not place,
 * and plain refusals for changes to data and for subjects the catalog says it does not hold.
 */
import type { Catalog } from '../../catalog/catalog.ts';
import { distance } from 'fastest-levenshtein';
import { closestMatch } from '../../shared/closestMatch.ts';
import { describeFilters, type PeriodNaming } from '../../skills/answerText.ts';
import type { QuestionForm, Understanding } from '../../skills/questionForms.ts';
import type { Vocabulary } from './vocabulary.ts';

/** What the offline model can answer, with each form's examples. */
export function capabilitiesReply(forms: readonly QuestionForm[], catalog: Catalog, opening = "I'm the built-in offline model: I answer these kinds of questions about the data, with exact figures from the tools:"): string {
  const lines = [opening];
  for (const form of forms) for (const example of form.examples.slice(0, 2)) lines.push(`- "${example}"`);
  lines.push(`Sources: ${[...catalog.sources.keys()].join(', ')}. I only read data: I cannot post, correct or delete anything. Connect an OpenAI-compatible model (OPENAI_BASE_URL) for free-form questions.`);
  return lines.join('\n');
}

/** "source fi_reporting, company 3000, period October 2024 (2024010)". */
export function describeUnderstanding(question: Understanding, naming: PeriodNaming = 1): string {
  const parts: string[] = [];
  if (question.sources.length) parts.push(`source${question.sources.length > 1 ? 's' : ''} ${question.sources.join(' and ')}`);
  if (question.measure) parts.push(`measure ${question.measure}`);
  const filters = describeFilters(question.filters, [], 'en-US', naming);
  if (filters) parts.push(filters);
  if (question.groupBy.length) parts.push(`by ${question.groupBy.map((d) => d.replace(/_/g, ' ')).join(' and ')}`);
  return parts.join(', ');
}

/**
 * A question back: what was understood, the words that stopped it (a meaning-changing word
 * it cannot answer yet, with why) and the words it could not place with the closest word of
 * the same kind it knows, and what to do. Never a figure.
 */
export function clarificationReply(question: Understanding, vocabulary: Vocabulary, problem?: string, stops: readonly { phrase: string; reason: string }[] = []): string {
  const understood = describeUnderstanding(question, vocabulary.calendar);
  const lines: string[] = [];
  if (problem) lines.push(`I can't answer that exactly as asked: ${problem}`);
  const stopped = new Set(stops.map((s) => s.phrase));
  if (stops.length) lines.push(`I stopped at ${stops.length === 1 ? 'one word' : 'these words'}: ${[...new Set(stops.map((s) => s.reason))].join('; ')}. I won't answer a different question instead.`);
  const unplaced = [...new Set(question.unknown)].filter((word) => !stopped.has(word));
  if (unplaced.length) {
    const words = unplaced.slice(0, 6);
    const hints = words.map((word) => {
      const closest = closestKnown(word, vocabulary);
      return `'${word}'${closest ? ` (closest I know: '${closest}')` : ''}`;
    });
    lines.push(`I could not place ${hints.join(', ')} in your question, and I won't guess a figure around ${words.length === 1 ? 'it' : 'them'}.`);
  }
  if (understood) lines.push(`What I understood: ${understood}.`);
  lines.push('Could you rephrase with names from the catalog (a source, company, account, period or measure)? "Which sources are available?" lists them.');
  return lines.join('\n');
}

/**
 * The closest name or word of the same kind as `word`: a name for a capitalised word
 * ("Contoso Germny"), a word of the catalog, an intent or filler for a lower-case one, never
 * a fragment ("ic" is inside "duplicats" but nothing like it). None for codes, or for a word
 * it knows ("Contoso" of "Contoso XX": naming one name that holds it would be a guess).
 */
function closestKnown(word: string, vocabulary: Vocabulary): string | undefined {
  const lower = word.toLowerCase();
  if (/\d/.test(word) || vocabulary.words.has(lower)) return undefined;
  if (/^\p{Lu}/u.test(word)) {
    const names = [...vocabulary.byFirstWord.values()].flat().filter((p) => p.meaning.kind !== 'intent' && p.meaning.kind !== 'group').map((p) => p.words.join(' '));
    return closestMatch(lower, names.filter((name) => name.length >= 3));
  }
  let best: string | undefined;
  let bestScore = 0.4;
  for (const candidate of vocabulary.spellings.keys()) {
    if (Math.abs(candidate.length - lower.length) > 3) continue;
    const score = distance(lower, candidate) / Math.max(lower.length, candidate.length);
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return best;
}

/** A request to change data: refused, with what it can do instead. */
export function actionReply(action: string): string {
  return [
    `I can't ${action.includes(' ') ? `make a ${action}` : action} anything: I only read the data, and no tool of mine writes, posts, corrects or deletes records.`,
    'What I can do instead: find and quantify the problem (duplicates, blank values, unusual periods, differences between sources) so the owner of the source system can correct it there.',
  ].join('\n');
}

/** A subject the catalog says the data does not hold. */
export function notHeldReply(subjects: { term: string; reason: string }[]): string {
  const reasons = [...new Set(subjects.map((s) => s.reason))];
  return `I can't answer questions about ${subjects.map((s) => `'${s.term}'`).join(', ')}: ${reasons.join('; ')}. I can give P&L figures instead (revenue, expenses and the operating result by company, account and period).`;
}

/** A question too long to read. */
export function tooLongReply(limit: number): string {
  return `Your question is longer than the ${limit.toLocaleString('en-US')} characters I read. Could you ask it in a shorter form, one question at a time?`;
}

/** Periods it cannot place without a date ("last month"). */
export function relativePeriodReply(question: Understanding, phrases: string[], naming: PeriodNaming = 1): string {
  const understood = describeUnderstanding(question, naming);
  return `Which period do you mean by '${phrases.join("', '")}'? I don't assume today's date: name it, e.g. "December 2024", "Q4 2024" or "2024".${understood ? `\nWhat I understood so far: ${understood}.` : ''}`;
}
