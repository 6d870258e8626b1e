/**
 * The README is the front door: short, with the two commands CI and a newcomer run, and every
 * link from it and from the docs/ pages leading somewhere. The pages describe the product as it
 * is, never how it changed (release-note phrases fail here).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, fencedBlocks, headingAnchors, projectRoot, proseMatches, readDoc, relativeLinks } from './readmeMarkdown.ts';

describe('README.md', () => {
  it('stays short: at most 20 KB, the details in docs/', () => {
    expect(statSync(path.join(projectRoot, 'README.md')).size).toBeLessThanOrEqual(20 * 1024);
  });

  it('gives the install-and-start and the test command exactly as CI runs them', () => {
    const commands = fencedBlocks(readDoc('README.md'))
      .filter((block) => block.lang === 'sh')
      .map((block) => block.text.trim());
    expect(commands).toContain('npm install && npm start');
    expect(commands).toContain('npm test');
  });

  it('links every docs/ page', () => {
    const linked = new Set(relativeLinks(readDoc('README.md')).map((link) => link.target.split('#')[0]));
    const pages = documentationFiles().filter((file) => file.startsWith('docs/'));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('lists every environment variable the configuration reads', () => {
    const configDir = path.join(projectRoot, 'src/config');
    const source = readdirSync(configDir, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(path.join(configDir, file), 'utf8'))
      .join('\n');
    const read = [...new Set([...source.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]!))];
    const documented = new Set([...readDoc('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((match) => match[1]!));
    expect(read.length).toBeGreaterThan(20);
    expect(read.filter((name) => !documented.has(name))).toEqual([]);
  });
});

describe('README.md and docs/*.md', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of documentationFiles()) {
      for (const { target, line } of relativeLinks(readDoc(file))) {
        checked++;
        const [pathPart, anchor] = target.split('#') as [string, string | undefined];
        const resolved = pathPart === '' ? path.join(projectRoot, file) : path.resolve(path.dirname(path.join(projectRoot, file)), decodeURIComponent(pathPart));
        if (!existsSync(resolved)) {
          broken.push(`${file}:${line}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(readDoc(path.relative(projectRoot, resolved))).includes(anchor)) {
          broken.push(`${file}:${line}: ${target} (no such heading)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('name only files of the repository that exist', () => {
    // docs/skills.md and docs/layout.md are checked by their own tests (test/docs, test/architecture).
    const pages = documentationFiles().filter((file) => file !== 'docs/skills.md' && file !== 'docs/layout.md');
    const missing = pages.flatMap((file) =>
      [...readDoc(file).matchAll(/(?<![\w./-])((?:src|skills|test|web|data|scripts|bench|evaluation|examples)\/[\w./-]*\.(?:ts|js|md|yaml|json|sh))\b/g)]
        .map((match) => match[1]!)
        .filter((named) => !existsSync(path.join(projectRoot, named)))
        .map((named) => `${file}: ${named}`),
    );
    expect(missing).toEqual([]);
  });

  it('describe the product as it is, not how it changed', () => {
    const history = [/before this (release|work|change)/i, /\bBefore:/, /\bused to\b/i, /\bas before\b/i, /\blike before\b/i, /\bstop \d+\b/i, /\bissue \d+\b/i, /\bfirst score\b/i, /\(before[,:]/i, /\bbefore\b.*\bnow\b/i];
    const found = documentationFiles().flatMap((file) => proseMatches(file, readDoc(file), history));
    expect(found).toEqual([]);
  });
});
