/**
 * For the browser tests: the real service listening on 127.0.0.1, and headless Chromium
 * (Debian's `chromium`, driven by playwright-core) with a fresh profile and no network chatter.
 * Screenshots go to test/.artifacts/web/ (gitignored).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { loadConfig } from '../../../src/config/config.ts';
import { silentLogger } from '../../../src/logging/logger.ts';
import { createService, type Service } from '../../../src/service.ts';
import { DEFAULT_CHROMIUM_PATH, INSTALL_COMMAND } from '../../../scripts/ensureChromium.ts';

// Globals of the page, for the callbacks that run in the browser (the project type-checks without the DOM library).
declare const document: any, window: any, MutationObserver: any;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const artifactsDirectory = path.join(root, 'test/.artifacts/web');

/** Where Chromium is expected; CHROMIUM_PATH overrides it. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface RunningService {
  service: Service;
  server: Server;
  /** Base URL with a trailing slash: http://127.0.0.1:PORT/ */
  url: string;
  close(): Promise<void>;
}

/** The real service (offline model, sample data, its own application database) on a free port. */
export async function startService(environment: Record<string, string> = {}): Promise<RunningService> {
  const directory = mkdtempSync(path.join(tmpdir(), 'analyst-web-'));
  const service = await createService(
    loadConfig({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(directory, 'app.db'), ...environment } as NodeJS.ProcessEnv),
    silentLogger(),
  );
  const server = await new Promise<Server>((resolve) => {
    const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    service,
    server,
    url,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A proxy in front of the service that passes everything through but spaces the events of a
 * Server-Sent Events response `delayMs` apart, as a model writing at reading speed would (the
 * offline model writes its whole answer at once). A client that disconnects cancels upstream.
 */
export async function startSlowStreamProxy(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const upstream = httpRequest(new URL(request.url ?? '/', target), { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!String(answer.headers['content-type'] ?? '').includes('text/event-stream')) {
        answer.pipe(response);
        return;
      }
      answer.setEncoding('utf8');
      const queue: string[] = [];
      let rest = '';
      let ended = false;
      let pumping = false;
      const pump = async () => {
        if (pumping) return;
        pumping = true;
        while (queue.length > 0 && !response.destroyed) {
          response.write(queue.shift());
          await new Promise((resolve) => setTimeout(resolve, delayMs));
        }
        pumping = false;
        if (ended && queue.length === 0 && !response.writableEnded) response.end(rest);
      };
      answer.on('data', (chunk: string) => {
        const events = (rest + chunk).split(/(?<=\n\n)/);
        rest = events.at(-1)!.endsWith('\n\n') ? '' : events.pop()!;
        queue.push(...events);
        void pump();
      });
      answer.on('end', () => {
        ended = true;
        void pump();
      });
    });
    upstream.on('error', () => response.destroy());
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile.
 * @throws Error saying how to install Chromium when it is missing (the tests never skip).
 */
export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not installed at ${chromiumPath}; the browser tests need it. Install it with ` +
        `\`${INSTALL_COMMAND}\` (.ci/run does this), or set CHROMIUM_PATH to a Chromium binary.`,
    );
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'analyst-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: options.viewport ?? { width: 1280, height: 860 },
    locale: 'en-US',
    permissions: ['clipboard-read', 'clipboard-write'],
    acceptDownloads: true,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A new page that fails the test on any script error and collects console errors. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  return { page, errors };
}

/** Saves a screenshot under test/.artifacts/web/ and returns its path. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(artifactsDirectory, { recursive: true });
  const file = path.join(artifactsDirectory, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  return file;
}

/**
 * Records, inside the page, what the streamed answer looked like while it arrived: every text the
 * `.ac-streaming` paragraph showed and whether the answer was marked busy. Call before asking.
 * `root` is a selector of the element whose shadow root holds the chat, or none for the page.
 */
export async function recordStreaming(page: Page, root?: string): Promise<void> {
  await page.evaluate((hostSelector) => {
    const scope = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
    const seen: { texts: string[]; busy: boolean } = { texts: [], busy: false };
    (window as unknown as { __streaming: typeof seen }).__streaming = seen;
    new MutationObserver(() => {
      const container = scope;
      const streaming = container.querySelectorAll('.ac-streaming');
      const last = streaming[streaming.length - 1];
      if (last && last.textContent && seen.texts[seen.texts.length - 1] !== last.textContent) seen.texts.push(last.textContent);
      if (container.querySelector('.ac-answer[aria-busy="true"]')) seen.busy = true;
    }).observe(scope, { subtree: true, childList: true, characterData: true, attributes: true });
  }, root);
}

export async function streamingRecord(page: Page): Promise<{ texts: string[]; busy: boolean }> {
  return page.evaluate(() => (window as unknown as { __streaming: { texts: string[]; busy: boolean } }).__streaming);
}

/** Counts the canvas pixels that are not transparent: a drawn chart has thousands. */
export async function paintedPixels(page: Page, canvasSelector: string): Promise<number> {
  return page.locator(canvasSelector).first().evaluate((canvas: any) => {
    const context = canvas.getContext('2d');
    if (!context || canvas.width === 0 || canvas.height === 0) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let index = 3; index < data.length; index += 4) if (data[index]! > 0) painted += 1;
    return painted;
  });
}

export interface DrawnChart {
  /** Category labels (the axis a reader reads them on). */
  labels: string[];
  /** The legend's entries as drawn. */
  legend: string[];
  /** The value axis's tick labels as drawn. */
  ticks: string[];
}

/**
 * What the Chart.js chart on a canvas shows: its categories, legend and value-axis ticks. The
 * chart is looked up through the same Chart.js module the chat loaded (`vendorUrl`: the service's
 * /vendor/chart.js, absolute when the chat is embedded in another origin).
 */
export async function drawnChart(canvas: Locator, vendorUrl = '/vendor/chart.js'): Promise<DrawnChart> {
  return canvas.first().evaluate(async (element: any, url: string) => {
    // import() as text: vitest would rewrite it in a function it compiles.
    const { Chart } = await new Function('url', 'return import(url)')(url);
    const chart = Chart.getChart(element);
    if (!chart) throw new Error('no chart on this canvas');
    const valueAxis = chart.options.indexAxis === 'y' ? 'x' : 'y';
    return {
      labels: chart.data.labels.map(String),
      legend: (chart.legend?.legendItems ?? []).map((item: { text: string }) => item.text),
      ticks: chart.scales[valueAxis].ticks.map((tick: { label: unknown }) => String(tick.label)),
    };
  }, vendorUrl);
}
