/**
 * Periods read in the catalog's calendar (issue 21): with a fiscal year from April and data that
 * stores calendar months (YYYYMM), what analysts write lands on the fiscal period it means.
 */
import { describe, expect, it } from 'vitest';
import { FISCAL_CALENDAR, type PeriodCalendar } from '../../../src/catalog/periods.ts';
import { readPeriod } from '../../../src/model/offline/periodReader.ts';

const april: PeriodCalendar = { format: 'YYYYMM', fiscalYearStart: 4 };
const read = (text: string, calendar = april, defaultYear = 2025) => readPeriod(text.toLowerCase().split(' '), 0, defaultYear, () => false, calendar);

describe('a fiscal year from April over YYYYMM data', () => {
  it('reads calendar months as the fiscal period they fall in', () => {
    expect(read('April 2025')?.value).toEqual({ point: '2025001' });
    expect(read('March 2026')?.value).toEqual({ point: '2025012' });
    expect(read('202504')?.value).toEqual({ point: '2025001' });
    expect(read('2025-12')?.value).toEqual({ point: '2025009' });
    expect(read('dec-25')?.value).toEqual({ point: '2025009' });
  });

  it('reads quarters, halves and FY as fiscal, and a December of FY25 in 2025, a January in 2026', () => {
    expect(read('Q1 FY2025')?.value).toEqual({ span: { from: '2025001', to: '2025003' } });
    expect(read('H2 FY2024')?.value).toEqual({ span: { from: '2024007', to: '2024012' } });
    expect(read('fiscal 2025')?.value).toEqual({ span: { from: '2025001', to: '2025012' } });
    expect(read('FY25')?.value).toEqual({ span: { from: '2025001', to: '2025012' } });
    expect(read('December FY25')?.value).toEqual({ point: '2025009' });
    expect(read('January FY25')?.value).toEqual({ point: '2025010' });
  });

  it('dates a range by its end and its start: June to December 2025, November 2025 to February', () => {
    expect(read('June to December 2025')?.value).toEqual({ span: { from: '2025003', to: '2025009' } });
    expect(read('November 2025 to February')?.value).toEqual({ span: { from: '2025008', to: '2025011' } });
    expect(read('February 2025 to March')?.value).toEqual({ span: { from: '2024011', to: '2024012' } });
  });

  it('marks a bare year as ambiguous and a period without a year as undated', () => {
    expect(read('2025')).toMatchObject({ ambiguousYear: 2025 });
    expect(read('full year 2025')).toMatchObject({ ambiguousYear: 2025 });
    expect(read('fiscal year 2025')?.ambiguousYear).toBeUndefined();
    // Without a year: the default fiscal year's month (January of FY2025 is January 2026), marked undated.
    expect(read('January')).toMatchObject({ value: { point: '2025010' }, undated: true });
    expect(read('Q2')).toMatchObject({ value: { span: { from: '2025004', to: '2025006' } }, undated: true });
  });
});

describe('the default calendar (fiscal = calendar year, YYYYPPP)', () => {
  it('reads as before: months are periods of the same number, a bare year is the year, 202504 is no period', () => {
    expect(read('April 2024', FISCAL_CALENDAR, 2024)?.value).toEqual({ point: '2024004' });
    expect(read('2024', FISCAL_CALENDAR, 2024)).toMatchObject({ value: { span: { from: '2024001', to: '2024012' } } });
    expect(read('2024', FISCAL_CALENDAR, 2024)?.ambiguousYear).toBeUndefined();
    expect(read('202404', FISCAL_CALENDAR, 2024)).toBeUndefined();
    expect(read('November 2024 to February', FISCAL_CALENDAR, 2024)?.value).toEqual({ span: { from: '2024011', to: '2025002' } });
  });
});

describe('answers name a period as the month and the code the data stores', () => {
  it('spells the code beside the month in the catalog notation, and the default one unchanged', async () => {
    const { textFormat } = await import('../../../src/skills/answerText.ts');
    expect(textFormat('en-US', april).value('period', '2024006')).toBe('September 2024 (202409)');
    expect(textFormat('en-US', april).filters({ company: 'CA01', period: { from: '2025001', to: '2025003' } })).toBe('company CA01, period April 2025 (202504) to June 2025 (202506)');
    expect(textFormat('de-DE', { format: 'YYYY-MM', fiscalYearStart: 4 }).value('period', '2025010')).toBe('Januar 2026 (2026-01)');
    expect(textFormat('en-US', FISCAL_CALENDAR).value('period', '2024012')).toBe('December 2024 (2024012)');
    expect(textFormat('en-US', 4).value('period', '2024006')).toBe('September 2024 (2024006)');
  });
});

describe('a period without a year in a conversation', () => {
  it('takes the fiscal year of the question before, a range across a year end moved whole, also when the question starts afresh', async () => {
    const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { projectRoot } = await import('../../../src/config/config.ts');
    const { loadCatalog } = await import('../../../src/catalog/loadCatalog.ts');
    const { buildVocabulary } = await import('../../../src/model/offline/vocabulary.ts');
    const { understand } = await import('../../../src/model/offline/understand.ts');
    const { resolve, stateOf } = await import('../../../src/model/offline/conversation.ts');
    // The sample's catalog with periods in 2023 and 2024, so the default year is 2024.
    const directory = mkdtempSync(path.join(tmpdir(), 'fiscal-periods-'));
    const file = path.join(directory, 'sources.yaml');
    writeFileSync(file, readFileSync(path.join(projectRoot, 'data/sources.yaml'), 'utf8').replace(/examples: \["2024001", "2024012"\]/g, 'examples: ["2023001", "2024012"]'));
    const vocabulary = buildVocabulary(loadCatalog(file), []);
    rmSync(directory, { recursive: true, force: true });
    const before = stateOf(understand('amount in fi_reporting for company 1000 in 2023', vocabulary), 'query');
    const follow = (text: string) => resolve(understand(text, vocabulary), before).filters.period;
    expect(follow('and in Q2?')).toEqual({ from: '2023004', to: '2023006' });
    expect(follow('and from November to February?')).toEqual({ from: '2023011', to: '2024002' });
    // A question naming its own source and company still reads "Q1" in the year talked about.
    expect(follow('amount in bpc_reporting for company 2000 in Q1')).toEqual({ from: '2023001', to: '2023003' });
    // With a year, nothing moves.
    expect(follow('and in Q2 2024?')).toEqual({ from: '2024004', to: '2024006' });
  });
});
