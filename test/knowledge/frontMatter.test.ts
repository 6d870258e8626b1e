/**
 * Knowledge front matter: what a file and its sections declare they concern reaches every
 * passage (down the heading path), never the passage text; a malformed block or a section the
 * file does not have stops startup with the file named; and a scoped key's search leaves out a
 * passage that concerns hidden data even when its words give nothing away.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { checkKnowledge } from '../../src/knowledge/checkKnowledge.ts';
import { buildKnowledgeBase, firstHeading } from '../../src/knowledge/knowledgeBase.ts';
import { splitMarkdown } from '../../src/knowledge/passages.ts';
import { showsPassage } from '../../src/scopes/hiddenWords.ts';
import { scopeCatalog } from '../../src/scopes/scopedCatalog.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const where = { skill: 'demo', file: 'skills/demo/knowledge/loads.md' };
const file = [
  '---',
  '# what the parts are about',
  'concerns: { sources: [fi_reporting] }',
  'sections:',
  '  "A repeated load": { values: { company: ["2000"] } }',
  '---',
  '# Loads',
  'Every load has a request.',
  '## A repeated load',
  'Two requests in one period.',
  '### The second request',
  'It holds only copies.',
  '## Any company',
  'Delete the copies.',
].join('\n');

describe('knowledge front matter', () => {
  it("gives each passage its file's and its sections' concerns, and keeps the block out of the text", () => {
    const passages = splitMarkdown(file, where);
    expect(passages.map((passage) => [passage.heading, passage.concerns])).toEqual([
      ['Loads', { sources: ['fi_reporting'] }],
      ['Loads › A repeated load', { sources: ['fi_reporting'], values: { company: ['2000'] } }],
      ['Loads › A repeated load › The second request', { sources: ['fi_reporting'], values: { company: ['2000'] } }],
      ['Loads › Any company', { sources: ['fi_reporting'] }],
    ]);
    expect(passages.map((passage) => passage.body).join('\n')).not.toMatch(/concerns|sections|what the parts/);
    // A YAML comment in the block is not the file's title.
    expect(firstHeading(file)).toBe('Loads');
  });

  it('stops at startup on a malformed block or a section the file does not have, naming the file', () => {
    const broken = (block: string) => () => splitMarkdown(`---\n${block}\n---\n# Loads\ntext`, where);
    expect(broken('concerns: [unclosed')).toThrow(ConfigurationError);
    expect(broken('concerns: [unclosed')).toThrow(/skills\/demo\/knowledge\/loads\.md.*not valid YAML/);
    expect(broken('concerns: { source: [fi_reporting] }')).toThrow(/front matter concerns/);
    expect(broken('sections: { "Lods": { sources: [fi_reporting] } }')).toThrow(/declares sections it does not have: Lods/);
  });

  it("hides from a scoped key's search a passage that concerns hidden data although its words name none", () => {
    const skill = path.join(temporaryDirectory('front-matter-'), 'demo');
    mkdirSync(path.join(skill, 'knowledge'), { recursive: true });
    writeFileSync(path.join(skill, 'knowledge', 'loads.md'), file);
    const knowledge = buildKnowledgeBase([{ name: 'demo', directory: skill }]);
    const catalog = loadCatalog(path.resolve('data/sources.yaml'));
    const searchAs = (values: Record<string, string[]>, sources?: string[]) => {
      const { hidden } = scopeCatalog(catalog, { values, ...(sources ? { sources } : {}) });
      return knowledge.search('requests copies', { limit: 10, shown: (passage, concerns) => showsPassage(hidden, `${passage.heading}\n${passage.text}`, concerns) }).map((passage) => passage.heading);
    };
    expect(knowledge.search('requests copies', { limit: 10 })).toHaveLength(4);
    // Company 1000: the section declared about company 2000 and the one under it are left out, though no word names 2000.
    expect(searchAs({ company: ['1000'] }).sort()).toEqual(['Loads', 'Loads › Any company']);
    expect(searchAs({ company: ['2000'] })).toHaveLength(4);
    // A key without fi_reporting sees nothing of a file about it.
    expect(searchAs({}, ['consolidation_mart'])).toEqual([]);
    knowledge.close();
  });

  it('is checked by skill:check against the catalog: every shipped file passes, a misspelt name is reported', () => {
    const catalog = loadCatalog(path.resolve('data/sources.yaml'));
    for (const skill of ['data_analyst', 'data_quality', 'movement_analysis', 'knowledge']) expect(checkKnowledge(path.resolve('skills', skill), catalog), skill).toEqual([]);
    const skill = path.join(temporaryDirectory('front-matter-check-'), 'demo');
    mkdirSync(path.join(skill, 'knowledge'), { recursive: true });
    writeFileSync(path.join(skill, 'knowledge', 'typo.md'), '---\nconcerns: { sources: [bpc], values: { compny: ["1000"] } }\n---\n# Typo\ntext\n');
    writeFileSync(path.join(skill, 'knowledge', 'broken.md'), '---\nsections: { "Nowhere": {} }\n---\n# Broken\ntext\n');
    expect(checkKnowledge(skill, catalog).map((problem) => `${path.basename(problem.file)}: ${problem.message}`)).toEqual([
      expect.stringMatching(/^broken\.md: .*declares sections it does not have: Nowhere/),
      expect.stringMatching(/^typo\.md: front matter names source 'bpc', which is not in the catalog/),
      expect.stringMatching(/^typo\.md: front matter names dimension 'compny'/),
    ]);
  });
});
