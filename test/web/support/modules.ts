/**
 * For the unit tests of the web app's pure modules (plain ES modules under web/app, no types):
 * imports one by file name, typed by the caller. Those modules touch no DOM, so they run in Node.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const appDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/app');

/** `web/app/<name>` as a module with the exports the test declares. */
export async function webModule<T>(name: string): Promise<T> {
  const file = path.join(appDirectory, name);
  return (await import(file)) as T;
}
