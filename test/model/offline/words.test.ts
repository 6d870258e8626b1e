/**
 * The offline model's words: ordinary English (the word list) is filler, the closed list of
 * meaning-changing words is never filler (read by a form, or asked back naming the word),
 * typos of intent words are corrected, the count of a ranking fills its slot, "period 6" is
 * dated by the catalog's only year, and words that may be names are echoed as not used.
 * The core is read here with no question form at all, so no form's intent words hide a rule.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../../src/config/config.ts';
import { understand } from '../../../src/model/offline/understand.ts';
import { buildVocabulary, type Vocabulary } from '../../../src/model/offline/vocabulary.ts';
import { loadSkills } from '../../../src/skills/loader.ts';

/** The core's words alone (no form's intent phrases). */
let vocabulary: Vocabulary;
/** With the skills' question forms, as the service reads. */
let withForms: Vocabulary;
let twoYears: Vocabulary;
const directory = mkdtempSync(path.join(tmpdir(), 'offline-words-'));
beforeAll(async () => {
  const catalogFile = path.join(projectRoot, 'data/sources.yaml');
  vocabulary = buildVocabulary(loadCatalog(catalogFile), []);
  const skills = await loadSkills(path.join(projectRoot, 'skills'));
  withForms = buildVocabulary(loadCatalog(catalogFile), skills.flatMap((skill) => skill.questions ?? []));
  // The same catalog whose periods show 2023 and 2024: "period 6" no longer names one period.
  const file = path.join(directory, 'sources.yaml');
  writeFileSync(file, readFileSync(catalogFile, 'utf8').replace(/examples: \["2024001", "2024012"\]/g, 'examples: ["2023001", "2024012"]'));
  twoYears = buildVocabulary(loadCatalog(file), []);
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('ordinary words', () => {
  it.each([
    ['Which data sources can I ask about?'],
    ['How much revenue did Contoso UK post in March?'],
    ['What was posted on revenue for company 1000 in May 2024?'],
    ['What did the UK company book as revenue in Q2, I was asked to check'],
    ['How much revenue was booked by the German entity in October, roughly speaking?'],
  ])('reads the inflected everyday words of "%s" as filler', (text) => {
    const reading = understand(text, withForms);
    expect(reading.unknown).toEqual([]);
    expect(reading.stops).toEqual([]);
  });

  it('still asks back codes, numbers, capitalised unknown names and a catalog word used alone', () => {
    expect(understand('revenue of company 1000 for Fabrikam in December', vocabulary).unknown).toEqual(['Fabrikam']);
    expect(understand('EBITDA of company 1000 in December', vocabulary).unknown).toEqual(['EBITDA']);
    expect(understand('revenue of company 1000 in SAP in December', vocabulary).unknown).toEqual(['SAP']);
    expect(understand('revenue of Contoso in December', vocabulary).unknown).toEqual(['Contoso']);
  });

  it('reads an ordinary word written like a name as not used, and says so', () => {
    const reading = understand('revenue of Contoso UK for Apple in December', vocabulary);
    expect(reading.unknown).toEqual([]);
    expect(reading.ignored).toEqual(['Apple']);
    expect(reading.filters.company).toBe('3000');
    // A capital that opens a sentence names nothing.
    expect(understand('Revenue of Contoso UK in December. Apple pie aside, is it right?', vocabulary).ignored).toEqual([]);
  });

  it('keeps the words of a question that names no data, as the topic to look up', () => {
    expect(understand('What will the weather be like?', vocabulary).unknown).toEqual(['weather']);
  });
});

describe('meaning-changing words', () => {
  it.each([
    ['Which month had the highest revenue for company 1000?', 'highest'],
    ['top accounts of company 1000 in 2024', 'top'],
    ['revenue of company 1000 in December excluding above 100', 'excluding'],
    ['revenue of company 1000 above 100000 in December', 'above'],
    ['average revenue of company 1000 in 2024', 'average'],
    ['revenue ratio of company 1000 to company 2000 in 2024', 'ratio'],
    ['revenue of company 1000 since October', 'since'],
    ['How much more revenue did company 2000 make in Q2 than in Q1?', 'than'],
    ['How much did the second load request add for company 1000 in December?', 'second'],
    ['revenue of company 1000 in December not in retail', 'not'],
    ['revenue of company 1000 in 2024 excluding depreciation', 'excluding'],
    ['what share of the revenue of company 1000 is retail?', 'share'],
    ['does FI disagree with BPC for 1000 in December?', 'disagree'],
  ])('"%s" is asked back naming \'%s\' when no form reads it', (text, word) => {
    const reading = understand(text, vocabulary);
    expect(reading.stops.map((stop) => stop.phrase.toLowerCase())).toContain(word);
    expect(reading.unknown.map((unknown) => unknown.toLowerCase())).toContain(word);
  });

  it('reads "not" on a verb and "only" without a source as no constraint', () => {
    expect(understand('why does fi_reporting not match bpc_reporting for 1000 in December?', vocabulary).stops).toEqual([]);
    expect(understand("why doesn't fi_reporting match bpc_reporting for 1000 in December?", vocabulary).stops).toEqual([]);
    expect(understand('revenue of company 1000 in December only', vocabulary).stops).toEqual([]);
    expect(understand('revenue only in fi_reporting for company 1000', vocabulary).stops.map((s) => s.phrase)).toEqual(['only']);
    expect(understand('Only the manual entries in bpc_reporting, please', vocabulary).stops).toEqual([]);
  });

  it('reads a breakdown named by its verb, and asks back a breakdown of nothing', () => {
    expect(understand('the segment split for company 3000 in April', vocabulary).groupBy).toEqual(['segment']);
    expect(understand('break down company 2000 in June by group account', vocabulary).groupBy).toEqual(['group_account']);
    expect(understand('revenue of company 1000 per profit centre in January', vocabulary).groupBy).toEqual(['profit_center']);
    expect(understand('does the intercompany elimination net to zero in every month?', vocabulary).groupBy).toEqual(['period']);
    expect(understand('Show me the UK numbers per account for November 2024', withForms).groupBy).toEqual(['group_account']);
    // "per the mart" is "according to the mart".
    const perSource = understand('Group operating result in EUR for 2024, per the mart', vocabulary);
    expect([perSource.groupBy, perSource.stops, perSource.sources]).toEqual([[], [], ['consolidation_mart']]);
    const nothing = understand('split the revenue of company 1000 in 2024', vocabulary);
    expect(nothing.groupBy).toEqual([]);
    expect(nothing.stops.map((s) => s.phrase)).toEqual(['split']);
    // Between two values of one dimension: by that dimension.
    expect(understand('split the 2024 revenue of company 2000 between industry and retail', vocabulary).groupBy).toEqual(['segment']);
  });

  it('fills the count of a ranking, never reading it as a code', () => {
    const top = understand('top 3 accounts of company 1000 in 2024', vocabulary);
    expect(top.count).toBe(3);
    expect(top.filters).toEqual({ company: '1000', period: { from: '2024001', to: '2024012' } });
    expect(understand('the five largest accounts of company 1000', vocabulary).count).toBe(5);
    expect(understand('revenue of company 3000 in December', vocabulary).count).toBeUndefined();
  });
});

describe('typos', () => {
  it.each([
    ['totl revenue of company 1000 in December', 'totl', 'total'],
    ['any duplicats in fi_reporting in December?', 'duplicats', 'duplicates'],
    ['revenue of Contoso Deutschlnd in December', 'Deutschlnd', 'deutschland'],
    ['revenue in consolidaton for company 1000', 'consolidaton', 'consolidation'],
    ['bugdet of Contoso Inc. revenue in November', 'bugdet', 'budget'],
    ['compair the mart with BPC for 3000 in October', 'compair', 'compare'],
  ])('reads "%s" with \'%s\' as \'%s\'', (text, from, to) => {
    const reading = understand(text, withForms);
    expect(reading.corrections).toContainEqual({ from, to });
    expect(reading.unknown).toEqual([]);
  });

  it('never corrects a dictionary word into a catalog word, nor a code into a word', () => {
    // "mark" is one letter from "mart" (the consolidation mart), and is English.
    const reading = understand('mark the revenue of company 1000 in December', vocabulary);
    expect(reading.corrections).toEqual([]);
    expect(reading.sources).toEqual([]);
    expect(understand('bpc_reporting for scope S_CONSO for 1000', vocabulary).corrections).toEqual([]);
  });
});

describe('period numbers', () => {
  it("reads 'period 6' and 'P6' in the catalog's only year", () => {
    expect(understand('revenue of company 1000 in period 6', vocabulary).filters.period).toBe('2024006');
    expect(understand('revenue of company 1000 in P6', vocabulary).filters.period).toBe('2024006');
    expect(understand('revenue of company 1000 in period 6 2024', vocabulary).filters.period).toBe('2024006');
    expect(understand('depreciation of company 2000 per. 4', vocabulary).filters.period).toBe('2024004');
    for (const range of ['periods 1 to 3', 'periods 1-3', 'P1 to P3']) expect(understand(`opex of company 3000, ${range}`, vocabulary).filters.period).toEqual({ from: '2024001', to: '2024003' });
  });

  it('marks a period without a year, for the conversation to date it or to ask which year', () => {
    // The model asks back when the catalog shows several years and no question before dates it.
    expect(understand('revenue of company 1000 in period 6', twoYears).undated).toEqual(['period 6']);
    expect(understand('revenue of company 1000 in Q2', twoYears).undated).toEqual(['Q2']);
    expect(understand('revenue of company 1000 in period 6 2023', twoYears)).toMatchObject({ undated: [], filters: { period: '2023006' } });
    // One period with a year dates the question: "Q2 2023 against Q3" is not asked back.
    expect(understand('revenue of company 1000 in Q2 2023 vs Q3', twoYears).undated).toEqual([]);
  });
});
