import { describe, expect, it } from 'vitest';
import { MAX_PASSAGE_CHARS, splitMarkdown, splitLong } from '../../src/knowledge/passages.ts';

const where = { skill: 'demo', file: 'skills/demo/knowledge/guide.md' };

describe('splitting knowledge files into passages', () => {
  it('makes one passage per #, ## and ### section with its heading path', () => {
    const passages = splitMarkdown(
      [
        '---',
        'title: ignored frontmatter',
        '---',
        'Text before any heading.',
        '# Currency translation',
        'Intro of the document.',
        '## Average vs closing rate',
        'Flows use the average rate.',
        '### Closing rate',
        'Balances use the closing rate.',
        '#### A deeper heading stays text',
        'More on balances.',
        '## Empty section',
        '',
        '## `amount_gc` and **EUR** ##',
        'Group currency.',
      ].join('\n'),
      where,
    );
    expect(passages.map((p) => [p.heading, p.body])).toEqual([
      ['guide', 'Text before any heading.'],
      ['Currency translation', 'Intro of the document.'],
      ['Currency translation › Average vs closing rate', 'Flows use the average rate.'],
      ['Currency translation › Average vs closing rate › Closing rate', 'Balances use the closing rate.\n#### A deeper heading stays text\nMore on balances.'],
      ['Currency translation › amount_gc and EUR', 'Group currency.'],
    ]);
    expect(passages.every((p) => p.skill === 'demo' && p.file === where.file)).toBe(true);
  });

  it('resets deeper levels when a higher heading starts and ignores headings inside code fences', () => {
    const passages = splitMarkdown(
      ['# A', '## A1', 'one', '```sh', '# not a heading', '```', '# B', '### B deep', 'two', '## B1', 'three'].join('\n'),
      where,
    );
    expect(passages.map((p) => p.heading)).toEqual(['A › A1', 'B › B deep', 'B › B1']);
    expect(passages[0]!.body).toContain('# not a heading');
  });

  it('splits a long section between paragraphs, keeping every passage within the limit and the same heading', () => {
    const paragraph = (n: number) => `Paragraph ${n}: ${'the consolidation mart aggregates FI actuals by company and period. '.repeat(6).trim()}`;
    const body = Array.from({ length: 12 }, (_, n) => paragraph(n)).join('\n\n');
    const passages = splitMarkdown(`# Sources\n## The mart\n${body}\n## Next\nshort`, where);
    const mart = passages.filter((p) => p.heading === 'Sources › The mart');
    expect(mart.length).toBeGreaterThan(1);
    for (const passage of mart) {
      expect(passage.body.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
      expect(passage.body.startsWith('Paragraph ')).toBe(true); // cut between paragraphs, never inside one
    }
    expect(mart.map((p) => p.body).join('\n\n')).toBe(body);
    expect(passages.at(-1)).toMatchObject({ heading: 'Sources › Next', body: 'short' });
  });

  it('splits an oversized paragraph on lines, sentences and finally words', () => {
    const sentence = 'Translation at a wrong rate changes group currency while local currency matches. ';
    const oneParagraph = sentence.repeat(60).trim(); // about 5,000 characters without a blank line
    const chunks = splitLong(oneParagraph, 1_500);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks.every((c) => c.length <= 1_500 && c.endsWith('.'))).toBe(true);
    expect(chunks.join(' ')).toBe(oneParagraph);
    const word = 'x'.repeat(4_000);
    expect(splitLong(word, 1_500).map((c) => c.length)).toEqual([1_500, 1_500, 1_000]);
  });

  it('gives nothing for an empty file or headings without text', () => {
    expect(splitMarkdown('', where)).toEqual([]);
    expect(splitMarkdown('# Title\n\n## Section\n', where)).toEqual([]);
  });
});
