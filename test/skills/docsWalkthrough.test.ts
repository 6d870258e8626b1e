/**
 * The walk-through of docs/skills.md follows a real skill (movement_analysis): every code excerpt
 * it shows must be in the file it names, and the tool call it shows must answer what it prints.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';

const doc = readFileSync(path.join(projectRoot, 'docs/skills.md'), 'utf8');
const walkthrough = doc.slice(doc.indexOf('## 8. Walk-through'));
const blocks = [...walkthrough.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1]!, text: m[2]! }));

/** Lines of an excerpt between its `// …` cuts, blank lines and the cuts left out. */
function pieces(text: string): string[][] {
  const result: string[][] = [[]];
  for (const line of text.split('\n').slice(1)) {
    if (/^\s*(\/\/ )?…\s*$/.test(line)) result.push([]);
    else if (line.trim()) result[result.length - 1]!.push(line.trim());
  }
  return result.filter((piece) => piece.length > 0);
}

/** A line of an excerpt is the file's line, or its beginning when the excerpt cut it short with '…'. */
function same(excerpt: string, line: string | undefined): boolean {
  if (line === undefined) return false;
  const cut = excerpt.indexOf(' …');
  return cut === -1 ? excerpt === line : line.startsWith(excerpt.slice(0, cut));
}

describe('docs/skills.md walk-through', () => {
  it('shows excerpts that are in the files they name, in the same order of lines', () => {
    const excerpts = blocks.filter((b) => b.language === 'ts' && /^\/\/ skills\/\S+\.ts\n/.test(b.text));
    expect(excerpts.length).toBeGreaterThanOrEqual(6);
    for (const excerpt of excerpts) {
      const file = excerpt.text.slice(3, excerpt.text.indexOf('\n'));
      const lines = readFileSync(path.join(projectRoot, file), 'utf8').split('\n').map((line) => line.trim()).filter(Boolean);
      for (const piece of pieces(excerpt.text)) {
        const at = lines.findIndex((_, start) => piece.every((line, offset) => same(line, lines[start + offset])));
        expect(at, `${file} has no run of lines starting "${piece[0]}"`).toBeGreaterThanOrEqual(0);
      }
    }
  });

  describe('its tool call', () => {
    let service: ListeningService;
    beforeAll(async () => {
      service = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory(), 'app.db'), QUERY_WORKERS: '1' });
    });
    afterAll(() => service.close());

    it('answers what the document prints', async () => {
      const shell = blocks.find((b) => b.language === 'sh' && b.text.includes('/tools/compare_periods'))!.text;
      const body = /-d '(\{[^']*\})'/.exec(shell)![1]!;
      const printed = shell
        .split('\n')
        .filter((line) => line.startsWith('# '))
        .map((line) => JSON.parse(line.slice(2)) as unknown);
      const response = await fetch(`${service.url}/tools/compare_periods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).toBe(200);
      const { result, presentation } = (await response.json()) as { result: { totals: unknown; rows: unknown[] }; presentation: { views: { title: string }[] } };
      expect(printed.slice(0, 3)).toEqual([result.totals, result.rows[0], presentation.views.map((view) => view.title)]);
    });
  });
});
