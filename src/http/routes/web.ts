/**
 * The browser app: GET / (the chat page), GET /embed (the same chat, compact, for iframes),
 * GET /embed.js (the `<analyst-chat>` custom element for one-script-tag embedding), the app's
 * modules and styles under /app/{file}, the skills' pages at /app/{page} with their files under
 * /app/{skill}/{file} (sdk/pages.ts: the close board is the month_end_close skill's), and the
 * few vendored libraries (Chart.js, its colour helper, eventsource-parser) under /vendor/{file},
 * served from node_modules.
 *
 * Scripts and styles may be loaded from any origin (dashboards import /embed.js as a module,
 * which the browser fetches in CORS mode); they are public code, so `*` and no credentials.
 * Calls to the API itself are governed by the service's CORS settings, not by these headers.
 */
import { lstat, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import { projectRoot } from '../../config/config.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SkillRegistry } from '../../skills/registry.ts';
import { PAGE_NAME, WEB_FILE_NAME, webFolder } from '../../skills/sdk/pages.ts';
import { sendProblem } from '../problem.ts';

const webDirectory = path.join(projectRoot, 'web');
const appDirectory = path.join(webDirectory, 'app');

/** Strict policy for our pages: only our own scripts, styles and API; no inline code. */
const pagePolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface VendorFile {
  /** Package whose main entry point anchors the lookup, and the file inside its dist folder. */
  resolveFrom: () => string;
  /** Import specifiers rewritten to other /vendor files, so the browser needs no import map. */
  imports: Record<string, string>;
}

const require = createRequire(import.meta.url);
const distOf = (specifier: string, from?: string) => path.dirname((from ? createRequire(from) : require).resolve(specifier));

const vendorFiles: Record<string, VendorFile> = {
  'chart.js': {
    resolveFrom: () => path.join(distOf('chart.js'), 'chart.js'),
    imports: { './chunks/index.js': './chart-helpers.js', '@kurkle/color': './kurkle-color.js' },
  },
  'chart-helpers.js': {
    resolveFrom: () => path.join(distOf('chart.js'), 'chunks/index.js'),
    imports: { '@kurkle/color': './kurkle-color.js' },
  },
  'kurkle-color.js': {
    resolveFrom: () => path.join(distOf('@kurkle/color', require.resolve('chart.js')), 'color.esm.js'),
    imports: {},
  },
  'eventsource-parser.js': {
    resolveFrom: () => path.join(distOf('eventsource-parser'), 'index.js'),
    imports: {},
  },
};

/** Characters an import/export clause (`{ a, b as c }`, `* as d`, `e,`) is made of. */
const clauseCharacter = /[\w*{}\s,$]/;

/**
 * Every `import`/`export … from` specifier of an ES module (enough for these bundled builds).
 * A statement start is found with a pattern that cannot backtrack, then the clause is read by
 * hand: a single regex for the whole statement took cubic time on long runs of spaces.
 * @example
 * moduleSpecifiers("import { a } from './a.js'; export * from \"./b.js\";"); // ['./a.js', './b.js']
 */
export function moduleSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const start of source.matchAll(/(?:^|[;\n}])[ \t]*(?:import|export)(?![\w$])/g)) {
    let index = start.index + start[0].length;
    const clauseStart = index;
    while (index < source.length && clauseCharacter.test(source[index]!)) index += 1;
    const quote = source[index];
    if (quote !== "'" && quote !== '"') continue;
    const clause = source.slice(clauseStart, index).trimEnd();
    // `import 'x'` (no clause) or a clause ending in the word `from`.
    if (clause.trim() !== '' && !(clause.endsWith('from') && !/[\w$]/.test(clause.charAt(clause.length - 5)))) continue;
    const end = source.indexOf(quote, index + 1);
    const specifier = end === -1 ? '' : source.slice(index + 1, end);
    if (specifier !== '' && !/['"]/.test(specifier)) found.add(specifier);
  }
  return [...found];
}

/**
 * A vendored module with its imports pointed at other /vendor files and its source-map comment
 * dropped (maps are not served).
 * @throws Error when the module imports something not mapped (a library upgrade changed its files).
 */
export async function vendorModule(name: string): Promise<string> {
  const file = vendorFiles[name];
  if (!file) throw new Error(`'${name}' is not a vendored file`);
  let source = await readFile(file.resolveFrom(), 'utf8');
  for (const specifier of moduleSpecifiers(source)) {
    const target = file.imports[specifier];
    if (!target) throw new Error(`vendored ${name} imports '${specifier}', which is not mapped to a /vendor file`);
    source = source.replaceAll(`'${specifier}'`, `'${target}'`).replaceAll(`"${specifier}"`, `"${target}"`);
  }
  return source.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

export const vendorFileNames = Object.keys(vendorFiles);

function sendAsset(response: Response, body: string | Buffer, extension: string): void {
  response.setHeader('access-control-allow-origin', '*');
  response.setHeader('cross-origin-resource-policy', 'cross-origin');
  response.setHeader('x-content-type-options', 'nosniff');
  // An SVG opened on its own is a document that could run script: it may only draw.
  if (extension === '.svg') response.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  // Revalidate every time (cheap: ETag and 304); upgrades and edits show at once.
  response.setHeader('cache-control', 'no-cache');
  response.type(contentTypes[extension] ?? 'application/octet-stream').send(body);
}

/** A file of a skill's web/ folder, or undefined when it is missing or not a plain file (a link could point anywhere). */
async function skillFile(skillDirectory: string, file: string): Promise<Buffer | undefined> {
  const folder = webFolder(skillDirectory);
  const location = path.join(folder, file);
  const [folderFound, found] = await Promise.all([lstat(folder).catch(() => undefined), lstat(location).catch(() => undefined)]);
  return folderFound?.isDirectory() && found?.isFile() ? await readFile(location).catch(() => undefined) : undefined;
}

function sendPage(response: Response, html: Buffer, framable: boolean): void {
  response.setHeader('content-security-policy', framable ? pagePolicy : `${pagePolicy}; frame-ancestors 'self'`);
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('referrer-policy', 'no-referrer');
  response.setHeader('cache-control', 'no-cache');
  response.type('text/html; charset=utf-8').send(html);
}

/** `/embed/` (or a page's name with a slash) would resolve the page's relative URLs one level too deep: 308 to the page, query kept. */
function redirectWithoutSlash(request: Request, response: Response, page: string): void {
  const query = request.originalUrl.indexOf('?');
  response.redirect(308, `../${page}${query >= 0 ? request.originalUrl.slice(query) : ''}`);
}

/**
 * Whether a request is for a page dashboards may put in an iframe: /embed, or a skill's page
 * declared framable. Reads the registry at each call (skill reloads).
 * @example
 * framablePage(registry, '/app/checks'); // true: the close board is declared framable
 */
export function framablePage(registry: SkillRegistry, requestPath: string): boolean {
  if (requestPath === '/embed') return true;
  const name = /^\/app\/([^/]+)$/.exec(requestPath)?.[1];
  return name !== undefined && PAGE_NAME.test(name) && registry.page(name)?.page.framable === true;
}

/** The routes; `services.registry` is read at each request, so a skill reload changes the pages. */
export function webRoutes(services: { logger: Logger; readonly registry: SkillRegistry }): Router {
  const router = Router();
  const vendorCache = new Map<string, Promise<string>>();

  router.get('/', async (_request, response) => {
    sendPage(response, await readFile(path.join(webDirectory, 'index.html')), false);
  });

  // For iframes on dashboard pages: no frame-ancestors restriction.
  router.get('/embed', async (request, response) => {
    if (request.path.endsWith('/')) return redirectWithoutSlash(request, response, 'embed');
    sendPage(response, await readFile(path.join(webDirectory, 'embed.html')), true);
  });

  router.get('/embed.js', async (_request, response) => {
    sendAsset(response, await readFile(path.join(webDirectory, 'embed.js')), '.js');
  });

  router.get('/app/:file', async (request, response) => {
    const name = request.params.file;
    // A skill's page sits among the app's modules, so its relative URLs (`month_end_close/board.js`,
    // and `../dom.js` from there) need no `app/`. Served here rather than by a route of its own:
    // the API description lists /app/{file} once.
    const page = PAGE_NAME.test(name) ? services.registry.page(name) : undefined;
    if (page) {
      if (request.path.endsWith('/')) return redirectWithoutSlash(request, response, name);
      const html = await skillFile(page.skill.directory, `${name}.html`);
      // Deleted since the skill loaded (a reload that failed keeps the old declaration).
      if (!html) sendProblem(response, 'notFound', `The page '${name}' of the skill '${page.skill.name}' has no file web/${name}.html.`);
      else sendPage(response, html, page.page.framable === true);
      return;
    }
    let body: Buffer | undefined;
    // Names of files under /app: flat, lower-case, a known extension (nothing else is reachable), as a skill's.
    if (WEB_FILE_NAME.test(name)) body = await readFile(path.join(appDirectory, name)).catch(() => undefined);
    if (!body) {
      sendProblem(response, 'notFound', `No file '${name}' in the web app.`);
      return;
    }
    sendAsset(response, body, path.extname(name));
  });

  // A skill's scripts, styles and images, from its web/ folder (enabled skills only).
  router.get('/app/:skill/:file', async (request, response) => {
    const { skill: skillName, file } = request.params;
    const skill = services.registry.skill(skillName);
    if (!skill) {
      sendProblem(response, 'notFound', `No enabled skill '${skillName}' serves files (GET /skills lists the skills).`);
      return;
    }
    const body = WEB_FILE_NAME.test(file) ? await skillFile(skill.directory, file) : undefined;
    if (!body) {
      sendProblem(response, 'notFound', `The skill '${skillName}' has no file '${file}' in its web folder.`);
      return;
    }
    sendAsset(response, body, path.extname(file));
  });

  router.get('/vendor/:file', async (request, response) => {
    const name = request.params.file;
    if (!Object.hasOwn(vendorFiles, name)) {
      sendProblem(response, 'notFound', `No vendored file '${name}'; there are ${vendorFileNames.join(', ')}.`);
      return;
    }
    let pending = vendorCache.get(name);
    if (!pending) {
      pending = vendorModule(name);
      vendorCache.set(name, pending);
      pending.catch((error: unknown) => {
        vendorCache.delete(name);
        services.logger.error({ err: error, file: name }, 'vendored file unavailable');
      });
    }
    sendAsset(response, await pending, '.js');
  });

  return router;
}
