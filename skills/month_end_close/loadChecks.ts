/**
 * `npm run checks:load -- --file checks.yaml [--url http://localhost:3000] [--key-env KEY_VAR]`:
 * saves the checks of a YAML (or JSON) file through a running service's `POST /tools/save_check`,
 * as the key given (its owner and scope become the checks'). The file is a list of save_check
 * arguments, so it says exactly what a chat or an MCP client would:
 *
 *   checks:
 *     - name: FI vs BPC 1000
 *       comparison: { source_a: fi_reporting, source_b: bpc_reporting, measure: amount, filters: { company: "1000" } }
 *       schedule: { kind: monthly_working_day, day: 3 }
 *
 * A check whose name exists is reported and left as it is (`--replace` deletes and saves it
 * again). Each line of output names the check and its first run's status, or what was refused,
 * with the file's line. Exit 0 when every check was saved, 1 when one was refused, 2 on usage.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { isMap, isNode, isSeq, LineCounter, parseDocument } from 'yaml';

const USAGE = 'usage: npm run checks:load -- --file checks.yaml [--url http://localhost:3000] [--key-env VARIABLE] [--replace]';

export interface LoadOutcome {
  name: string;
  line: number;
  saved: boolean;
  /** The first run's status, or what the service answered instead. */
  message: string;
}

/**
 * Saves every check of `file` through the service at `url`.
 * @throws Error for a file that cannot be read or is not a list of checks (naming the line).
 * @example
 * const outcomes = await loadChecks({ file: 'checks.yaml', url: 'http://localhost:3000', key: process.env.CONTROLLER_KEY });
 */
export async function loadChecks(options: { file: string; url: string; key?: string | undefined; replace?: boolean }): Promise<LoadOutcome[]> {
  const text = readFileSync(options.file, 'utf8');
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  if (document.errors.length) throw new Error(`${options.file}:${lines.linePos(document.errors[0]!.pos[0]).line}: not valid YAML: ${document.errors[0]!.message.split('\n')[0]}`);
  const root = document.contents;
  const list = isMap(root) ? root.get('checks', true) : root;
  if (!isSeq(list)) throw new Error(`${options.file}: expected 'checks:' followed by a list of checks (the arguments of save_check)`);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) };
  const call = async (tool: string, body: unknown) => {
    const response = await fetch(new URL(`/tools/${tool}`, options.url), { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as { result?: { status?: string; schedule?: string | null }; error?: { code?: string; message?: string }; detail?: string } };
  };
  const outcomes: LoadOutcome[] = [];
  for (const item of list.items) {
    const line = lines.linePos(isNode(item) ? (item.range?.[0] ?? 0) : 0).line;
    const check = (isNode(item) ? item.toJSON() : item) as { name?: unknown } | undefined;
    const name = typeof check?.name === 'string' ? check.name : '(no name)';
    if (options.replace && typeof check?.name === 'string') await call('delete_check', { check: check.name });
    const answer = await call('save_check', check);
    const saved = answer.status === 200;
    outcomes.push({ name, line, saved, message: saved ? `saved; first run ${answer.body.result?.status}${answer.body.result?.schedule ? `; ${answer.body.result.schedule}` : ''}` : `${answer.body.error?.code ?? answer.status}: ${answer.body.error?.message ?? answer.body.detail ?? 'refused'}` });
  }
  return outcomes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let values: { file?: string; url?: string; 'key-env'?: string; replace?: boolean };
  try {
    ({ values } = parseArgs({ options: { file: { type: 'string' }, url: { type: 'string', default: 'http://localhost:3000' }, 'key-env': { type: 'string' }, replace: { type: 'boolean' } } }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (!values.file) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  // The key comes from an environment variable, never from the command line (a process list shows that).
  const key = values['key-env'] ? process.env[values['key-env']] : undefined;
  try {
    const outcomes = await loadChecks({ file: values.file, url: values.url!, key, replace: values.replace ?? false });
    for (const outcome of outcomes) process.stdout.write(`${values.file}:${outcome.line}: ${outcome.name}: ${outcome.message}\n`);
    process.exit(outcomes.every((outcome) => outcome.saved) ? 0 : 1);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
