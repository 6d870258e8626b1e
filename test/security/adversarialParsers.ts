/**
 * Every parser and pattern the service runs on text a caller controls, as one list: the
 * adversarial-input test runs each on inputs ten times larger than a request can carry (a hang
 * guard), and the latency benchmark (bench/latency.ts) times each on the corpus.
 */
import { resolveFilters } from '../../src/catalog/filters.ts';
import type { Source } from '../../src/catalog/catalog.ts';
import { describePeriod, monthNumber, parsePeriod, parsePeriodSpan } from '../../src/catalog/periods.ts';
import { wantsEventStream } from '../../src/http/eventStream.ts';
import { moduleSpecifiers } from '../../src/http/routes/web.ts';
import { bearerToken } from '../../src/access/apiKeys.ts';
import { hostName } from '../../src/http/security/requestGuards.ts';
import { shorten } from '../../src/knowledge/knowledgeBase.ts';
import { splitMarkdown, withoutClosingHashes } from '../../src/knowledge/passages.ts';
import { searchPhrases, searchTerms } from '../../src/knowledge/query.ts';
import { toModelProviderError } from '../../src/model/providerErrors.ts';
import { decodeCursor } from '../../src/sessions/sessionPaging.ts';
import { titleOf } from '../../src/sessions/sessionRecords.ts';
import { closestMatch, suggestionHint } from '../../src/shared/closestMatch.ts';
import { cut, oneLine } from '../../src/shared/messageText.ts';
import { redactUrls, safeUrl } from '../../src/shared/redact.ts';
import { oversizedArgument } from '../../src/skills/argumentGuard.ts';
import { describeValue } from '../../src/skills/answerText.ts';
import { adversarialStrings, atLimit } from './adversarialCorpus.ts';

export type Parser = [name: string, run: (input: string) => unknown];

/**
 * The parsers; `source` gives a catalog source with a period dimension, for the filter resolver
 * (called only when that parser runs, so the list can be built before the catalog is loaded).
 * @example
 * for (const [name, run] of adversarialParsers(() => catalog.sources.get('fi_reporting')!)) run('2024   x');
 */
export function adversarialParsers(source: () => Source): Parser[] {
  return [
    ['parsePeriod', parsePeriod],
    ['parsePeriodSpan', parsePeriodSpan],
    ['monthNumber', monthNumber],
    ['describePeriod', describePeriod],
    ['resolveFilters (period value, no schema in front)', (input) => resolveFilters(source(), { period: input })],
    ['resolveFilters (period range bounds)', (input) => resolveFilters(source(), { period: { from: input, to: input } })],
    ['searchTerms', searchTerms],
    ['searchPhrases', searchPhrases],
    ['splitMarkdown', (input) => splitMarkdown(`# Title\n${input}\n## ${input}\n`, { skill: 's', file: 'f.md' })],
    ['withoutClosingHashes', withoutClosingHashes],
    ['shorten', (input) => shorten(input, 700)],
    ['moduleSpecifiers', moduleSpecifiers],
    ['closestMatch', (input) => closestMatch(input, ['fi_reporting', 'bpc_reporting', 'consolidation_mart'])],
    ['suggestionHint', (input) => suggestionHint(input, ['fi_reporting', 'bpc_reporting'])],
    ['redactUrls', redactUrls],
    ['safeUrl', safeUrl],
    ['hostName', hostName],
    ['bearerToken', bearerToken],
    ['decodeCursor', decodeCursor],
    ['titleOf', titleOf],
    ['oneLine', oneLine],
    ['cut', (input) => cut(input, 200)],
    ['describeValue', (input) => describeValue('period', input)],
    ['oversizedArgument', (input) => oversizedArgument({ filters: { [input]: input } })],
    ['toModelProviderError', (input) => toModelProviderError(new Error(input))],
    ['wantsEventStream', (input) => wantsEventStream(undefined, input)],
  ];
}

/**
 * Runs `run` on `input`: 'answered', or the name of the error it refused with.
 * @example
 * answer(parsePeriod, 'q4   x'); // 'answered', 'ToolError', …
 */
export function answer(run: (input: string) => unknown, input: string): string {
  try {
    run(input);
    return 'answered';
  } catch (error) {
    return error instanceof Error ? error.name : typeof error;
  }
}

/** The corpus and the at-limit values, named. */
export function corpusInputs(corpus: Record<string, string> = adversarialStrings): [string, string][] {
  return [...Object.entries(corpus), ...atLimit(200).map((text, index): [string, string] => [`at limit ${index}`, text])];
}
