/**
 * The routes that serve the browser app (no browser needed): the pages with their security
 * headers, the element script, the app's modules and the vendored libraries, whose imports must
 * all resolve to files the service serves (the browser has no bundler and no import map).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { moduleSpecifiers, vendorFileNames } from '../../src/http/routes/web.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let service: Service;
let api: ReturnType<typeof supertest>;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'analyst-web-routes-'));
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
  api = supertest(service.app);
});

afterAll(async () => {
  await service?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Fetches a module by URL path and every module it imports, transitively; returns the paths. */
async function moduleGraph(start: string): Promise<string[]> {
  const seen = new Set<string>();
  const pending = [start];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const response = await api.get(current);
    expect(response.status, `GET ${current}`).toBe(200);
    expect(response.headers['content-type'], `GET ${current}`).toBe('text/javascript; charset=utf-8');
    for (const specifier of moduleSpecifiers(response.text)) {
      expect(specifier, `${current} imports a bare specifier`).toMatch(/^\.\.?\//);
      pending.push(new URL(specifier, `http://x${current}`).pathname);
    }
  }
  return [...seen].sort();
}

describe('the pages', () => {
  it('GET / is the chat page under a strict content security policy, not framable elsewhere', async () => {
    const response = await api.get('/');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = response.headers['content-security-policy'];
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).toContain("frame-ancestors 'self'");
    expect(response.text).toContain('<script type="module" src="app/page.js"></script>');
    expect(response.text).not.toMatch(/<script>|\son[a-z]+=|style=/); // nothing inline
  });

  it('GET /embed is the compact chat, framable by dashboards', async () => {
    const response = await api.get('/embed');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(response.text).toContain('data-mode="compact"');
    const slash = await api.get('/embed/?x=1');
    expect(slash.status).toBe(308);
    expect(slash.headers.location).toBe('../embed?x=1');
  });

  it("GET /app/checks is the month_end_close skill's close board, framable, its files from the skill's folder", async () => {
    const response = await api.get('/app/checks');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(response.headers['x-frame-options']).toBeUndefined();
    expect(response.text).toContain('<script type="module" src="month_end_close/board.js"></script>');
    const graph = await moduleGraph('/app/month_end_close/board.js');
    expect(graph).toEqual(expect.arrayContaining(['/app/month_end_close/board-api.js', '/app/month_end_close/board-text.js', '/app/dom.js', '/app/api.js', '/app/charts.js']));
    for (const sheet of ['/app/month_end_close/board.css', '/app/month_end_close/board-history.css']) {
      expect((await api.get(sheet)).headers['content-type'], sheet).toBe('text/css; charset=utf-8');
    }
  });
});

describe('scripts and styles', () => {
  it('GET /embed.js loads the element, its modules and Chart.js, all served here, from any origin', async () => {
    const response = await api.get('/embed.js');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const graph = await moduleGraph('/embed.js');
    expect(graph).toEqual(expect.arrayContaining(['/app/element.js', '/app/chat.js', '/app/charts.js', '/app/api.js', '/vendor/eventsource-parser.js']));
    // Chart.js is imported on first use: its graph must resolve too.
    expect(await moduleGraph('/vendor/chart.js')).toEqual(['/vendor/chart-helpers.js', '/vendor/chart.js', '/vendor/kurkle-color.js']);
  });

  it("every module under web/app and the skills' web folders, and every vendored file, is served and resolves", async () => {
    const modules = readdirSync(path.join(root, 'web/app')).filter((name) => name.endsWith('.js'));
    for (const name of modules) await moduleGraph(`/app/${name}`);
    for (const skill of readdirSync(path.join(root, 'skills'))) {
      const folder = path.join(root, 'skills', skill, 'web');
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder).filter((file) => file.endsWith('.js'))) await moduleGraph(`/app/${skill}/${name}`);
    }
    for (const name of vendorFileNames) await moduleGraph(`/vendor/${name}`);
    const css = await api.get('/app/chat.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('anything else under /app and /vendor is a 404 problem', async () => {
    for (const url of ['/app/missing.js', '/app/..%2Fpackage.json', '/app/.hidden.js', '/vendor/express.js', '/vendor/__proto__', '/app/index.ts']) {
      const response = await api.get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers['content-type'], url).toContain('application/problem+json');
      expect(response.body.type, url).toBe('/problems/not-found');
    }
  });
});
