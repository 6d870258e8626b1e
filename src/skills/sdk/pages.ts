/**
 * Pages a skill serves in the browser, beside the chat: the month_end_close skill's close board
 * is one. A page is an HTML file in the skill's `web/` folder, served at `/app/<name>`; the
 * folder's scripts, styles and images are served at `/app/<skill>/<file>`, so a page loads
 * `<skill>/board.js`, and that module imports the web app's own modules as `../dom.js`. The
 * service serves the page under its strict content security policy (no inline code); the core
 * knows no page by name.
 *
 * @example
 * // skills/month_end_close/index.ts
 * export default defineSkill({
 *   tools: [listChecks, runCheckTool],
 *   pages: [{ name: 'checks', title: 'Close board', framable: true }], // web/checks.html at /app/checks
 * });
 */
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isEditorFile } from '../../shared/editorFiles.ts';

export interface SkillPage {
  /** Lower-case letters, digits and hyphens: the page is `web/<name>.html`, served at `/app/<name>`. */
  name: string;
  /** What the page is, in a few words (GET /skills lists it for dashboards). */
  title: string;
  /** True when dashboards on other origins may put the page in an iframe, like /embed. Default false. */
  framable?: boolean;
}

/** A page's name: one path segment, no extension, so it never shadows a module of the web app. */
export const PAGE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** A file of a skill's web folder the service serves: flat, lower-case, a script, style or image. */
export const WEB_FILE_NAME = /^[a-z0-9][a-z0-9-]{0,63}\.(js|css|svg)$/;

/**
 * The folder of a skill's pages and their files.
 * @example
 * webFolder('skills/month_end_close'); // 'skills/month_end_close/web'
 */
export const webFolder = (skillDirectory: string) => path.join(skillDirectory, 'web');

/**
 * What is wrong with a skill's `pages` and its web/ folder: each page needs a valid name, a title
 * and, when the skill's folder is given, its `web/<name>.html`; no name twice. Every other file
 * of `web/` must be one the service serves (it would quietly answer 404 otherwise), and none may
 * be a symbolic link (it could point anywhere). Editors' and dot files are left alone.
 * @example
 * pageProblems([{ name: 'Checks', title: '' }]);
 * // ['pages[0]: name must be lower-case letters, digits and hyphens (it is the page\'s URL, /app/<name>), not "Checks"', 'pages[0]: title must say what the page is']
 */
export function pageProblems(pages: unknown, skillDirectory?: string): string[] {
  const problems: string[] = [];
  const declared = new Set<string>();
  if (pages !== undefined && !Array.isArray(pages)) problems.push('pages must be a list of { name, title, framable? }');
  (Array.isArray(pages) ? pages : []).forEach((page: unknown, index) => {
    const { name, title, framable } = (page ?? {}) as Partial<Record<keyof SkillPage, unknown>>;
    if (typeof name !== 'string' || !PAGE_NAME.test(name)) {
      problems.push(`pages[${index}]: name must be lower-case letters, digits and hyphens (it is the page's URL, /app/<name>), not ${JSON.stringify(name)}`);
    } else if (declared.has(name)) {
      problems.push(`pages[${index}]: the page '${name}' is declared twice`);
    } else {
      declared.add(name);
      const file = skillDirectory && path.join(webFolder(skillDirectory), `${name}.html`);
      if (file && !existsSync(file)) problems.push(`pages[${index}]: ${file} is missing (a page is web/<name>.html in the skill's folder)`);
    }
    if (typeof title !== 'string' || title.trim() === '') problems.push(`pages[${index}]: title must say what the page is`);
    if (framable !== undefined && typeof framable !== 'boolean') problems.push(`pages[${index}]: framable must be true or false`);
  });
  if (skillDirectory) problems.push(...webFolderProblems(webFolder(skillDirectory), declared));
  return problems;
}

/** The files of a web/ folder the service would not serve as they are. */
function webFolderProblems(folder: string, pages: ReadonlySet<string>): string[] {
  if (!existsSync(folder)) return [];
  if (lstatSync(folder).isSymbolicLink()) return ["web: a symbolic link; the service serves only the skill's own folder, so make web/ a folder of the skill"];
  if (!statSync(folder).isDirectory()) return [];
  const problems: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = entry.name;
    if (file.startsWith('.') || isEditorFile(file)) continue;
    const page = file.endsWith('.html') ? file.slice(0, -5) : undefined;
    if (entry.isSymbolicLink()) problems.push(`web/${file}: a symbolic link; the service serves only the folder's own files, so copy the file in`);
    else if (page !== undefined && !pages.has(page)) {
      problems.push(
        PAGE_NAME.test(page)
          ? `web/${file}: not a declared page; add { name: '${page}', title } to the skill's pages, or remove it`
          : `web/${file}: not a page name the service serves; rename it to lower-case letters, digits and hyphens and declare it in pages`,
      );
    } else if (page === undefined && !WEB_FILE_NAME.test(file)) {
      problems.push(`web/${file}: the service serves only flat, lower-case .js, .css and .svg files beside the pages; rename or remove it`);
    }
  }
  return problems;
}
