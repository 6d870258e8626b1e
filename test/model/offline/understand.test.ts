/**
 * How the offline model reads a question: every word matched to the catalog, a period, an
 * intent or filler; misspellings corrected and reported; leftovers kept, never dropped; and
 * no input, however long or repetitive, is read past its first MAX_QUESTION_CHARACTERS (the
 * reading's speed is measured by `npm run bench:latency`).
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../../src/catalog/catalog.ts';
import { loadCatalog } from '../../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../../src/config/config.ts';
import { MAX_QUESTION_CHARACTERS } from '../../../src/model/offline/tokens.ts';
import { understand } from '../../../src/model/offline/understand.ts';
import { buildVocabulary, type Vocabulary } from '../../../src/model/offline/vocabulary.ts';
import { loadSkills } from '../../../src/skills/loader.ts';

let catalog: Catalog;
let vocabulary: Vocabulary;
beforeAll(async () => {
  catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'));
  const skills = await loadSkills(path.join(projectRoot, 'skills'));
  vocabulary = buildVocabulary(catalog, skills.flatMap((skill) => skill.questions ?? []));
});

describe('understand', () => {
  it('reads names instead of codes from the catalog vocabulary', () => {
    const reading = understand('revenue of Contoso UK in the mart', vocabulary);
    expect(reading.filters).toEqual({ group_account: 'G4000000', company: '3000' });
    expect(reading.sources).toEqual(['consolidation_mart']);
    expect(reading.unknown).toEqual([]);
  });

  it('corrects misspelt months and source names, and says so', () => {
    const reading = understand('amount in fi_reportin for Octobr and septmber', vocabulary);
    expect(reading.sources).toEqual(['fi_reporting']);
    expect(reading.filters.period).toEqual(['2024010', '2024009']);
    expect(reading.corrections.map((c) => c.to)).toEqual(['fi_reporting', 'october', 'september']);
  });

  it.each([
    ['for the last quarter of 2024', { from: '2024010', to: '2024012' }],
    ['in Q3', { from: '2024007', to: '2024009' }],
    ['first half of 2024', { from: '2024001', to: '2024006' }],
    ['year to date at November', { from: '2024001', to: '2024011' }],
    ['from October to December 2024', { from: '2024010', to: '2024012' }],
    ['for FY 2024', { from: '2024001', to: '2024012' }],
    ['in Dec-24', '2024012'],
    ['in 12/2024', '2024012'],
    ['in P11', '2024011'],
    ['in period 2024010', '2024010'],
  ])('reads the period in "%s"', (text, period) => {
    const reading = understand(`amount of company 1000 ${text}`, vocabulary);
    expect(reading.filters.period).toEqual(period);
    expect(reading.filters.company).toBe('1000');
    expect(reading.unknown).toEqual([]);
  });

  it('keeps constraints it cannot place instead of dropping them', () => {
    expect(understand('EBITDA of company 1000 in December', vocabulary).unknown).toEqual(['EBITDA']);
    expect(understand('amount for Fabrikam in December', vocabulary).unknown).toEqual(['Fabrikam']);
    expect(understand('what was the number last month', vocabulary).relativePeriods).toEqual(['last month']);
  });

  it('reads a dimension word followed by a code as a filter, listed or not', () => {
    expect(understand('profit centre PC1030 in FI', vocabulary).filters).toEqual({ profit_center: 'PC1030' });
    expect(understand('company 4000 in FI', vocabulary).filters).toEqual({ company: '4000' });
    expect(understand('gl account 6000000 for company 2000', vocabulary).filters).toEqual({ gl_account: '6000000', company: '2000' });
  });

  it('recognises requests to change data and subjects the data does not hold', () => {
    expect(understand('please post a correcting entry for the duplicates', vocabulary).action).toBe('post');
    expect(understand('delete the duplicated load', vocabulary).action).toBe('delete');
    expect(understand('why was December loaded twice?', vocabulary).action).toBeUndefined();
    expect(understand('cash balance at year end', vocabulary).notHeld.map((n) => n.term)).toEqual(['cash balance']);
  });

  it('tells follow-ups from complete questions', () => {
    expect(understand('and for 2000?', vocabulary)).toMatchObject({ elliptical: true, complete: false, filters: { company: '2000' } });
    expect(understand('monthly amount for company 1000 by period', vocabulary)).toMatchObject({ complete: true, groupBy: ['period'] });
  });

  it('reads only the first MAX_QUESTION_CHARACTERS of any input, however long or repetitive', () => {
    const inputs = [
      `${'what '.repeat(800)}${'data '.repeat(800)}`,
      `2024${' '.repeat(65_000)}x`,
      'q'.repeat(64_000),
      `${'company 1000 and '.repeat(3_000)}`,
      `${'from october to '.repeat(3_000)}`,
      `${'octobr '.repeat(5_000)}`,
      // What follows the cut is never read: no company 2000 filter.
      `${'what '.repeat(MAX_QUESTION_CHARACTERS / 5)} company 2000 in December 2024`,
    ];
    const readingOf = (text: string) => {
      const { text: _text, tooLong, truncated: _truncated, ...reading } = understand(text, vocabulary);
      return { tooLong, reading };
    };
    for (const input of inputs) {
      // Ten times larger than a request can carry: a reading that grew faster than its input
      // (a backtracking pattern, a quadratic scan) would not end within the test's timeout.
      const huge = input.repeat(10);
      const { tooLong, reading } = readingOf(huge);
      expect(tooLong, input.slice(0, 40)).toBe(true);
      expect(reading, input.slice(0, 40)).toEqual(readingOf(huge.slice(0, MAX_QUESTION_CHARACTERS)).reading);
      expect(reading.filters.company ?? [], input.slice(0, 40)).not.toContain('2000');
    }
  });
});
