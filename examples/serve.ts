/**
 * Serves the example dashboard pages from another origin than the analyst service, the way a
 * real dashboard would embed it:
 *
 *   CORS_ORIGINS=http://localhost:8080 npm start        # the service, allowing the dashboard
 *   npx tsx examples/serve.ts                             # http://localhost:8080/dashboard.html
 *
 * ANALYST_URL (default http://127.0.0.1:3000) replaces that address in the pages; PORT of the
 * examples with EXAMPLES_PORT (default 8080). The browser tests use startExampleServer().
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The service address written in the example pages. */
export const EXAMPLE_SERVICE_URL = 'http://127.0.0.1:3000';
const pages = new Set(['dashboard.html', 'iframe.html']);

export interface ExampleServer {
  /** Base URL, e.g. http://localhost:8080/ */
  url: string;
  /** The analyst service written into the pages (may be changed while serving). */
  apiUrl: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts serving the example pages with `apiUrl` in place of the service address. */
export async function startExampleServer({ apiUrl, port = 0, host = 'localhost' }: { apiUrl: string; port?: number; host?: string }): Promise<ExampleServer> {
  const examples: ExampleServer = {
    url: '',
    apiUrl,
    server: undefined as unknown as Server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const service = examples.apiUrl.replace(/\/+$/, '');
    const name = new URL(request.url ?? '/', 'http://x').pathname.replace(/^\/+/, '') || 'dashboard.html';
    if (!pages.has(name)) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found. Try /dashboard.html or /iframe.html.\n`);
      return;
    }
    readFile(path.join(here, name), 'utf8').then(
      (html) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html.replaceAll(EXAMPLE_SERVICE_URL, service)),
      (error: Error) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(error.message),
    );
  });
  examples.server = server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  examples.url = `http://${host}:${address.port}/`;
  return examples;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const apiUrl = process.env.ANALYST_URL ?? EXAMPLE_SERVICE_URL;
  const { url } = await startExampleServer({ apiUrl, port: Number(process.env.EXAMPLES_PORT ?? 8080) });
  console.log(`Example dashboards for ${apiUrl}:\n  ${url}dashboard.html  (the <analyst-chat> element)\n  ${url}iframe.html     (an iframe of /embed)`);
  console.log(`Start the service with CORS_ORIGINS=${url.replace(/\/$/, '')} so the element may call it.`);
}
