/**
 * A skill's pages (sdk/pages.ts): a skill outside the bundled ones declares a page, and the
 * service serves it at /app/<name> with its files under /app/<skill>/<file>, lists it on GET
 * /skills, keeps it to its own origin unless it is declared framable, and stops serving it when
 * the skill is disabled. A page declared without its file, a stray file in web/, or one name
 * taken by two skills stops startup (and `npm run skill:check`) with the file to fix.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { checkSkills } from '../../src/skills/check.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const apiPath = path.resolve('src/skills/api.ts');

/** A skill folder with one tool, the given pages and web/ files. */
function writeSkill(root: string, name: string, pages: string, web: Record<string, string>) {
  const directory = path.join(root, name);
  mkdirSync(path.join(directory, 'web'), { recursive: true });
  writeFileSync(path.join(directory, 'SKILL.md'), `---\nname: ${name}\ndescription: A skill with a page of its own.\nversion: 1.0.0\n---\nSay pong.\n`);
  writeFileSync(
    path.join(directory, 'index.ts'),
    `import { z } from 'zod';\nimport { defineSkill, defineTool } from '${apiPath}';\n` +
      `export default defineSkill({ tools: [defineTool({ name: '${name}_ping', description: 'answers pong to anything', input: z.strictObject({}), handler: () => 'pong' })], pages: ${pages} });\n`,
  );
  for (const [file, text] of Object.entries(web)) writeFileSync(path.join(directory, 'web', file), text);
}

const notesPage = '<!doctype html><title>Notes</title><script type="module" src="team_notes/notes.js"></script>';
const notesModule = "import { h } from '../dom.js';\ndocument.body.append(h('p', {}, 'notes'));\n";

async function loadError(root: string): Promise<string> {
  const error = await loadSkills(root).catch((e: unknown) => e);
  expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
  return (error as Error).message;
}

const services: Service[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

async function start(skillsDirectory: string, disabled = ''): Promise<ReturnType<typeof supertest>> {
  const env = { SKILLS_DIR: skillsDirectory, SKILLS_DISABLED: disabled, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory(), 'app.db') };
  const service = await createService(loadConfig(env as NodeJS.ProcessEnv), silentLogger());
  services.push(service);
  return supertest(service.app);
}

describe("a skill's page, served", () => {
  it('is served at /app/<name> under the strict policy, kept to its own origin, its files beside it', async () => {
    const root = temporaryDirectory();
    // Files editors and the system leave beside them are no reason to refuse the skill.
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes' }]", {
      'notes.html': notesPage,
      'notes.js': notesModule,
      'notes.css': 'p { margin: 0 }',
      'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      '.DS_Store': '',
      '.notes.js.swp': '',
      'notes.js~': '',
    });
    const api = await start(root);
    const page = await api.get('/app/notes');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBe(notesPage);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    const script = await api.get('/app/team_notes/notes.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toBe(notesModule);
    // Its import of the app's own module resolves from there.
    expect((await api.get('/app/dom.js')).status).toBe(200);
    expect((await api.get('/app/team_notes/notes.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    // An image opened on its own may draw, never run script.
    const logo = await api.get('/app/team_notes/logo.svg');
    expect(logo.headers['content-type']).toBe('image/svg+xml');
    expect(logo.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const skills = await api.get('/skills');
    expect(skills.body.skills.find((skill: { name: string }) => skill.name === 'team_notes').pages).toEqual([{ name: 'notes', title: 'Team notes', path: '/app/notes', framable: false }]);
    const slash = await api.get('/app/notes/?x=1');
    expect(slash.status).toBe(308);
    expect(slash.headers.location).toBe('../notes?x=1');
    // Deleted while the service runs: a 404 that says which file, not a server error.
    rmSync(path.join(root, 'team_notes', 'web', 'notes.html'));
    const gone = await api.get('/app/notes');
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toBe("The page 'notes' of the skill 'team_notes' has no file web/notes.html.");
    // A web/ folder turned into a link since startup serves nothing.
    renameSync(path.join(root, 'team_notes', 'web'), path.join(root, 'team_notes', 'web-elsewhere'));
    symlinkSync(path.join(root, 'team_notes', 'web-elsewhere'), path.join(root, 'team_notes', 'web'));
    expect((await api.get('/app/team_notes/notes.js')).status).toBe(404);
  });

  it('may be framed by dashboards when declared framable', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes', framable: true }]", { 'notes.html': notesPage, 'notes.js': notesModule });
    const page = await (await start(root)).get('/app/notes');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(page.headers['x-frame-options']).toBeUndefined();
  });

  it('is not served, nor its files, when the skill is disabled; nothing outside web/ ever is', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes' }]", { 'notes.html': notesPage, 'notes.js': notesModule });
    writeSkill(root, 'other_skill', '[]', {});
    const enabled = await start(root);
    expect((await enabled.get('/app/no_skill/notes.js')).body.detail).toBe("No enabled skill 'no_skill' serves files (GET /skills lists the skills).");
    expect((await enabled.get('/app/team_notes/missing.js')).body.detail).toBe("The skill 'team_notes' has no file 'missing.js' in its web folder.");
    for (const url of ['/app/team_notes/index.ts', '/app/team_notes/SKILL.md', '/app/team_notes/notes.html', '/app/team_notes/..%2Findex.ts', '/app/team_notes/missing.js', '/app/no_skill/notes.js', '/app/other']) {
      const response = await enabled.get(url);
      expect(response.status, url).toBe(404);
      expect(response.body.type, url).toBe('/problems/not-found');
    }
    const disabled = await start(root, 'team_notes');
    expect((await disabled.get('/app/notes')).status).toBe(404);
    expect((await disabled.get('/app/team_notes/notes.js')).status).toBe(404);
    const listed = (await disabled.get('/skills')).body.skills.find((skill: { name: string }) => skill.name === 'team_notes');
    expect(listed).toMatchObject({ enabled: false, pages: [] });
  });
});

describe("a skill's page, declared wrongly", () => {
  it.each([
    ['a page without its file', "[{ name: 'notes', title: 'Team notes' }]", {}, /pages\[0\]: .*team_notes\/web\/notes\.html is missing/],
    ['a name that is not a URL segment', "[{ name: 'Notes', title: 'Team notes' }]", { 'Notes.html': notesPage }, /pages\[0\]: name must be lower-case letters, digits and hyphens .*not "Notes"/],
    ['a page declared twice', "[{ name: 'notes', title: 'A' }, { name: 'notes', title: 'B' }]", { 'notes.html': notesPage }, /pages\[1\]: the page 'notes' is declared twice/],
    ['no title', "[{ name: 'notes', title: ' ' }]", { 'notes.html': notesPage }, /pages\[0\]: title must say what the page is/],
    ['an HTML file no page declares', '[]', { 'notes.html': notesPage }, /web\/notes\.html: not a declared page; add \{ name: 'notes', title \}/],
    ['a file the service would not serve', "[{ name: 'notes', title: 'Team notes' }]", { 'notes.html': notesPage, 'Notes.JS': notesModule }, /web\/Notes\.JS: the service serves only flat, lower-case/],
    ['an HTML file whose name is no page name', '[]', { 'Notes.html': notesPage }, /web\/Notes\.html: not a page name the service serves; rename it to lower-case/],
    ['web files of a skill that declares no pages', 'undefined', { 'notes.html': notesPage }, /web\/notes\.html: not a declared page/],
  ])('%s stops startup and skill:check, naming the fix', async (_case, pages, web, message) => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', pages, web);
    expect(await loadError(root)).toMatch(message);
    const report = await checkSkills(root, { testDirectories: [] });
    expect(report.problems.map((problem) => problem.message).join('\n')).toMatch(message);
  });

  it('a symbolic link in web/ stops startup: it could point anywhere', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes' }]", { 'notes.html': notesPage });
    symlinkSync(path.join(root, 'team_notes', 'SKILL.md'), path.join(root, 'team_notes', 'web', 'notes.js'));
    expect(await loadError(root)).toMatch(/web\/notes\.js: a symbolic link; the service serves only the folder's own files/);
    // …and so is a web/ folder that is a link.
    const linked = temporaryDirectory();
    writeSkill(linked, 'team_notes', '[]', {});
    rmSync(path.join(linked, 'team_notes', 'web'), { recursive: true });
    symlinkSync(root, path.join(linked, 'team_notes', 'web'));
    expect(await loadError(linked)).toMatch(/web: a symbolic link; the service serves only the skill's own folder/);
  });

  it('one page name taken by two skills stops startup and skill:check, naming both', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes' }]", { 'notes.html': notesPage });
    writeSkill(root, 'more_notes', "[{ name: 'notes', title: 'More notes' }]", { 'notes.html': notesPage });
    const skills = await loadSkills(root);
    expect(() => new SkillRegistry(skills)).toThrow(ConfigurationError);
    expect(() => new SkillRegistry(skills)).toThrow(/Duplicate page 'notes': declared by skill 'more_notes' .* and skill 'team_notes'/);
    const messages = (await checkSkills(root, { testDirectories: [] })).problems.map((problem) => problem.message);
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/^page name 'notes' is also declared by skill 'team_notes' \(.*index\.ts:\d+\)/), expect.stringMatching(/^page name 'notes' is also declared by skill 'more_notes'/)]));
  });

  it('a page name shared with a disabled skill is a warning of skill:check; startup serves the enabled one', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'team_notes', "[{ name: 'notes', title: 'Team notes' }]", { 'notes.html': notesPage });
    writeSkill(root, 'more_notes', "[{ name: 'notes', title: 'More notes' }]", { 'notes.html': notesPage });
    const manifestPath = path.join(root, 'more_notes', 'SKILL.md');
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('version: 1.0.0\n', 'version: 1.0.0\nenabled: false\n'));
    const registry = new SkillRegistry(await loadSkills(root));
    expect(registry.page('notes')?.skill.name).toBe('team_notes');
    const report = await checkSkills(root, { testDirectories: [] });
    expect(report.problems.map((problem) => problem.message).filter((message) => message.startsWith('page name'))).toEqual([]);
    expect(report.warnings.map((warning) => warning.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^page name 'notes' is also declared by skill 'more_notes' \(disabled\) .*skill 'more_notes' is disabled, so startup skips it: enabling it would fail startup$/)]));
  });
});
