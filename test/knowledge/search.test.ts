import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { ToolError } from '../../src/errors/index.ts';
import { buildKnowledgeBase, indexPassages, MAX_RESULT_CHARS } from '../../src/knowledge/knowledgeBase.ts';
import { matchExpression, phraseExpression, searchPhrases, searchTerms } from '../../src/knowledge/query.ts';
import type { Passage } from '../../src/knowledge/passages.ts';

const analyst = { name: 'data_analyst', directory: path.join(projectRoot, 'skills/data_analyst') };
const knowledge = buildKnowledgeBase([analyst]);
afterAll(() => knowledge.close());

/** The first result of a search in data_analyst's knowledge. */
const top = (query: string) => knowledge.search(query, { skill: 'data_analyst' })[0];

describe('knowledge search ranking (data_analyst knowledge)', () => {
  it('indexes every knowledge file of the skill, each passage within the size limit', () => {
    const files = knowledge.documents().map((d) => d.file);
    expect(files).toEqual(
      expect.arrayContaining(['sources.md', 'reconciliation.md', 'currency.md', 'periods.md'].map((f) => `skills/data_analyst/knowledge/${f}`)),
    );
    expect(knowledge.documents().every((d) => d.passages > 0)).toBe(true);
    expect(knowledge.size()).toBeGreaterThanOrEqual(20);
    expect(knowledge.skills()).toEqual(['data_analyst']);
  });

  it('answers "why does consolidation differ from FI" with the eliminations passage first', () => {
    const results = knowledge.search('Why does consolidation differ from FI?', { skill: 'data_analyst' });
    expect(results[0]).toMatchObject({
      file: 'skills/data_analyst/knowledge/reconciliation.md',
      heading: 'Reconciliation › Why consolidation differs from FI: eliminations and adjustments',
      citation: 'skills/data_analyst/knowledge/reconciliation.md § Reconciliation › Why consolidation differs from FI: eliminations and adjustments',
      skill: 'data_analyst',
    });
    expect(results[0]!.text).toMatch(/eliminat/i);
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a));
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
  });

  it('answers "currency translation rate" from the currency file', () => {
    const results = knowledge.search('currency translation rate', { limit: 3 });
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.file === 'skills/data_analyst/knowledge/currency.md')).toBe(true);
  });

  it.each([
    ['can I add up year-to-date amounts over several periods?', 'periods.md', 'Period amounts vs year-to-date amounts'],
    ['what are special periods 13 to 16', 'periods.md', 'special periods 13 to 16'],
    ['what is a manual top-side adjustment in BPC', 'reconciliation.md', 'Manual top-side adjustments'],
    ['how to read minor_diff and major_diff', 'reconciliation.md', 'Reading match, minor_diff and major_diff'],
    ['the same documents were loaded twice: duplicated delta load', 'reconciliation.md', 'duplicated delta loads'],
    ['intercompany elimination does not net to zero', 'reconciliation.md', 'Intercompany eliminations'],
    ['what is fi_acquisition for?', 'sources.md', 'fi_acquisition'],
    ['map GL accounts to group accounts', 'accounts.md', 'GL accounts and group accounts'],
    ['wrong exchange rate symptoms', 'currency.md', 'Symptoms of translation at a wrong rate'],
  ])('ranks the right passage first for %j', (query, file, heading) => {
    const first = top(query);
    expect(first?.file).toBe(`skills/data_analyst/knowledge/${file}`);
    expect(first?.heading).toContain(heading);
  });

  it('matches inflections through stemming and prefixes', () => {
    expect(top('eliminating intercompany')?.heading).toContain('Intercompany eliminations');
    expect(top('translated currencies')?.file).toBe('skills/data_analyst/knowledge/currency.md');
  });

  it('cuts long passage text with an ellipsis and honours the limit', () => {
    const results = knowledge.search('consolidation', { limit: 10 });
    expect(results).toHaveLength(10);
    for (const result of results) {
      expect(result.text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS + 1);
      if (result.text.endsWith('…')) expect(result.text.length).toBeGreaterThan(MAX_RESULT_CHARS * 0.7);
    }
    expect(results.some((r) => r.text.endsWith('…'))).toBe(true);
    expect(knowledge.search('consolidation', { limit: 1 })).toHaveLength(1);
  });
});

describe('BM25 ranking on a small corpus', () => {
  const filler = (n: number): Passage => ({
    skill: 'demo',
    file: 'skills/demo/knowledge/filler.md',
    heading: `Filler › Topic ${n}`,
    body: `Unrelated notes number ${n} about profit centres, segments and quantities in pieces.`,
  });
  const passages: Passage[] = [
    {
      skill: 'demo',
      file: 'skills/demo/knowledge/guide.md',
      heading: 'Guide › Loading schedule',
      body: 'Loads run every night. The consolidation mart is loaded after FI; eliminations are covered elsewhere. Load requests are numbered per company and period, and a second request means a repeated load.',
    },
    {
      skill: 'demo',
      file: 'skills/demo/knowledge/guide.md',
      heading: 'Guide › Eliminations',
      body: 'Intercompany revenue and purchases are removed against each other in group currency.',
    },
    { skill: 'other', file: 'skills/other/knowledge/notes.md', heading: 'Notes › Eliminations checklist', body: 'Check both sides of every intercompany pair.' },
    ...Array.from({ length: 8 }, (_, n) => filler(n)),
  ];
  const index = indexPassages(passages);
  afterAll(() => index.close());

  it('ranks a heading match above a passing mention in the body', () => {
    const results = index.search('eliminations', { skill: 'demo' });
    expect(results.map((r) => r.heading)).toEqual(['Guide › Eliminations', 'Guide › Loading schedule']);
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
  });

  it('filters by skill and reports the skills with knowledge', () => {
    expect(index.skills()).toEqual(['demo', 'other']);
    expect(index.search('eliminations', { skill: 'other' }).map((r) => r.citation)).toEqual([
      'skills/other/knowledge/notes.md § Notes › Eliminations checklist',
    ]);
    expect(index.search('eliminations').map((r) => r.skill).sort()).toEqual(['demo', 'demo', 'other']);
  });

  it('returns nothing, without an error, when no word matches', () => {
    expect(index.search('xylophone zebra')).toEqual([]);
  });

  it('answers a query without searchable words with invalid_value and a hint', () => {
    for (const query of ['', '   ', 'why is it?', 'what does that mean', '?!', 'a b c']) {
      let caught: unknown;
      try {
        index.search(query);
      } catch (error) {
        caught = error;
      }
      expect(ToolError.isInstance(caught), query).toBe(true);
      expect((caught as ToolError).code).toBe('invalid_value');
      expect((caught as ToolError).hint).toMatch(/e\.g\./);
    }
  });

  it('answers an unknown skill with unknown_value, the choices and the closest', () => {
    try {
      index.search('eliminations', { skill: 'dem' });
      expect.unreachable();
    } catch (error) {
      expect(ToolError.isInstance(error)).toBe(true);
      const payload = (error as ToolError).toPayload().error;
      expect(payload).toMatchObject({ code: 'unknown_value', choices: ['demo', 'other'], closest: 'demo' });
      expect(payload.hint).toContain("Did you mean 'demo'?");
    }
  });
});

describe('hostile query strings', () => {
  const hostile = [
    '"',
    '"unterminated phrase',
    '""',
    '"" OR ""',
    '(consolidation OR',
    ')))',
    'NEAR(consolidation FI, 2)',
    'NEAR',
    'consolidation NEAR/3 FI',
    'currency*',
    '*',
    '* OR *',
    '-fi',
    'fi - bpc',
    'NOT currency',
    'currency AND',
    'OR OR OR',
    'heading: currency',
    'body:rate',
    '{heading body}: eliminations',
    '^start',
    'currency"*',
    "'; DROP TABLE passage; --",
    'rate\u0000null\u0001byte',
    'currency + translation = ?',
    'Währungsumrechnung café naïve',
    '円 通貨 換算',
    '🤔 currency 💶',
    'elimination '.repeat(2_000),
    Array.from({ length: 200 }, (_, n) => `word${n}`).join(' '),
  ];

  it.each(hostile.map((q) => [q.length > 60 ? `${q.slice(0, 60)}…` : q, q]))('never breaks the MATCH syntax: %j', (_label, query) => {
    try {
      const results = knowledge.search(query, { limit: 10 });
      expect(Array.isArray(results)).toBe(true);
    } catch (error) {
      // Only a clean "no searchable words" error is acceptable, never an SQLite error.
      expect(ToolError.isInstance(error), String(error)).toBe(true);
      expect((error as ToolError).code).toBe('invalid_value');
    }
  });

  it('still finds what the hostile text asks for', () => {
    expect(top('NEAR(consolidation "FI") -differs*')?.heading).toContain('Why consolidation differs from FI');
    expect(top('heading: "currency translation" AND rate*')?.file).toBe('skills/data_analyst/knowledge/currency.md');
  });

  it('builds only quoted words into the expression', () => {
    const terms = searchTerms('Why does "consolidation" (differ) from FI? NEAR* heading:x -y');
    expect(terms).toEqual(['consolidation', 'differ', 'fi', 'near', 'heading']);
    expect(matchExpression(terms)).toBe('"consolidation"* OR "differ"* OR "fi" OR "near" OR "heading"*');
  });

  it('searches compound words also as phrases', () => {
    expect(searchPhrases('YTD vs year-to-date in fi_acquisition, not up-to "top-side"')).toEqual([
      ['year', 'to', 'date'],
      ['fi', 'acquisition'],
      ['top', 'side'],
    ]);
    expect(phraseExpression(['year', 'to', 'date'])).toBe('"year to date"');
  });
});
