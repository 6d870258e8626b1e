/**
 * The close board (GET /app/checks) in headless Chromium against the real service: two checks
 * saved through POST /tools/save_check (company 1000 breaks by 110,000.00 EUR on the sample,
 * company 3000 ties), then what a controller sees and does: statuses in words, differences per
 * currency, open items with their age, sign-offs, a check's history with its trend chart, Run
 * now, the "only breaks" filter, a 390 px phone, an iframe on another origin, and the errors a
 * key or a tool reports. Screenshots: test/.artifacts/web/board-*.png.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { drawnChart, launchBrowser, openPage, paintedPixels, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

// Globals of the page, for the callbacks that run in the browser (the project type-checks without the DOM library).
declare const document: any, window: any;

const TEST_TIMEOUT = 30_000;
/** Waits for what the page shows (a loaded CI machine may need a few seconds). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });
/** The keys file's controller: may sign off (permissions: [sign_off]). */
const KEY = 'board-controller-key-0123456789';

let directory: string;
let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

const breakRow = () => page.locator('.board-check[data-check="fi_vs_bpc_1000"]');
const tieRow = () => page.locator('.board-check[data-check="fi_vs_bpc_3000"]');

/** Calls a tool as the controller; fails the test on anything but 200. */
async function callTool(name: string, body: unknown): Promise<any> {
  const response = await fetch(`${service.url}tools/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
  const answer = (await response.json()) as { result: unknown };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.result;
}

const saveCheck = (company: string, extra: Record<string, unknown> = {}) =>
  callTool('save_check', {
    name: `FI vs BPC ${company}`,
    comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company } },
    period: { kind: 'fixed', period: '2024-12' },
    ...extra,
  });

/** Opens the board afresh (a new document: a changed fragment alone would not reload it). */
async function openBoard(fragment = `#api-key=${KEY}`) {
  await page.goto('about:blank');
  const response = await page.goto(`${service.url}app/checks${fragment}`);
  expect(response?.status()).toBe(200);
  return response!;
}

/** CSP violations the page reported (recorded from the first script on, in every frame). */
const violations = () => page.evaluate(() => window.__violations ?? []);

/** Console errors, except the browser's own line for an HTTP error status the test caused on purpose. */
const unexpectedErrors = (status?: number) => errors.filter((error) => !(status && error.includes(`status of ${status}`)));

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'analyst-board-'));
  writeFileSync(path.join(directory, 'keys.yaml'), 'keys:\n  - name: controller\n    key_env: BOARD_CONTROLLER_KEY\n    permissions: [sign_off]\n');
  service = await startService({ API_KEYS_FILE: path.join(directory, 'keys.yaml'), BOARD_CONTROLLER_KEY: KEY });
  browser = await launchBrowser({ viewport: { width: 1280, height: 860 } });
  ({ page, errors } = await openPage(browser));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event: any) => window.__violations.push(`${event.violatedDirective}: ${event.blockedURI}`));
  });
});

beforeEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the close board', () => {
  it(
    'says how to save a check when there is none, under the strict CSP, framable like /embed',
    async () => {
      const response = await openBoard();
      const headers = response.headers();
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['content-security-policy']).not.toContain('frame-ancestors');
      expect(headers['x-frame-options']).toBeUndefined();
      const notice = page.locator('.board-notice');
      await poll(() => notice.textContent()).toBe("No checks yet: save one with save_check or ask the chat 'save a monthly check of …'");
      expect(await page.locator('.board-check').count()).toBe(0);
      expect(await page.locator('.board-filter').isVisible()).toBe(false);
      await screenshot(page, 'board-1-empty');
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'without the key says how to pass one',
    async () => {
      await openBoard('');
      const notice = page.locator('.board-notice-error');
      await poll(() => notice.textContent()).toContain('This board needs an API key');
      expect(await notice.textContent()).toContain(`${service.url}app/checks#api-key=YOUR_KEY`);
      expect(await page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
      expect(unexpectedErrors(401)).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'lists every check: status in words, difference per currency, open items, sign-off and schedule',
    async () => {
      await saveCheck('1000', { schedule: { kind: 'monthly_working_day', day: 3 } });
      await saveCheck('3000');
      await callTool('sign_off_run', { check: 'FI vs BPC 3000', period: '2024-12', note: 'Ties: nothing to explain.' });

      const listRequest = page.waitForRequest((request) => request.url() === `${service.url}tools/list_checks`);
      await openBoard();
      expect((await listRequest).headers().authorization).toBe(`Bearer ${KEY}`);
      await poll(() => page.locator('.board-check').count()).toBe(2);

      expect(await breakRow().locator('.board-field-status').innerText()).toMatch(/Break$/);
      expect(await tieRow().locator('.board-field-status').innerText()).toMatch(/Tie$/);
      expect(await breakRow().locator('.board-status').getAttribute('class')).toContain('board-status-break');
      expect(await breakRow().locator('.board-field-difference .board-amount').allTextContents()).toEqual(['110,000.00 EUR']);
      expect(await tieRow().locator('.board-field-difference .board-amount').allTextContents()).toEqual(['0.00 GBP']);
      expect(await breakRow().locator('.board-field-open .board-value').textContent()).toBe('1 open, oldest under a day');
      expect(await tieRow().locator('.board-field-open .board-value').textContent()).toBe('None open');
      expect(await tieRow().locator('.board-field-signoff .board-value').textContent()).toBe('2024-12 signed off by controller');
      expect(await breakRow().locator('.board-field-signoff .board-value').textContent()).toBe('Not signed off');
      expect(await breakRow().locator('.board-field-schedule .board-value').textContent()).toMatch(/^monthly on the 3rd working day at 06:00 \(UTC\)Next: /);
      expect(await tieRow().locator('.board-field-schedule .board-value').textContent()).toBe('No schedule: runs when asked');
      expect(await breakRow().locator('.board-field-last-run time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await breakRow().locator('.board-comparison').textContent()).toBe('fi_reporting vs bpc_reporting (company 1000)');
      expect(await page.locator('.board-summary').textContent()).toBe('2 checks: 1 break, 1 tie');
      // Wide: one line per check under column headings, Run now inside its row.
      expect(await page.locator('.board-columns').isVisible()).toBe(true);
      const row = await breakRow().boundingBox();
      const run = await breakRow().locator('.board-run').boundingBox();
      expect(run!.x + run!.width).toBeLessThanOrEqual(row!.x + row!.width);
      expect(run!.y).toBeLessThan(row!.y + 60);
      await screenshot(page, 'board-2-list');
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'shows the history of the selected check: trend chart, runs and open items',
    async () => {
      await page.getByRole('button', { name: 'FI vs BPC 1000: show history' }).click();
      const history = breakRow().locator('.board-history');
      await poll(() => history.getAttribute('data-runs')).toBe('1');
      expect(await page.getByRole('button', { name: 'FI vs BPC 1000: show history' }).getAttribute('aria-expanded')).toBe('true');

      await poll(() => history.locator('.board-chart[data-ready]').count()).toBe(1);
      expect(await history.locator('.board-chart').getAttribute('data-currency')).toBe('EUR');
      expect(await paintedPixels(page, '.board-check[data-check="fi_vs_bpc_1000"] canvas')).toBeGreaterThan(500);
      const chart = await drawnChart(history.locator('canvas'));
      expect(chart.labels).toHaveLength(1);
      // The value axis reaches the difference (ticks such as 0 … 120,000).
      expect(Number(chart.ticks.at(-1)!.replace(/,/g, ''))).toBeGreaterThanOrEqual(110_000);

      const runs = history.locator('.board-table tbody tr');
      expect(await runs.count()).toBe(1);
      const cells = await runs.first().locator('td').allTextContents();
      expect(cells.slice(1)).toEqual(['✕ Break', 'By hand', 'controller', '110,000.00 EUR']);
      expect(await history.locator('.board-open-item').textContent()).toBe('2024-12 company 1000, December 2024: 110,000.00 EUR open since the November run, 0 days'.replace('November', await monthOfRun()));
      await screenshot(page, 'board-3-history');
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'runs a check now: the button waits, the row and the history show the new run',
    async () => {
      // Held back a little, so the busy button can be seen.
      await page.route('**/tools/run_check', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        await route.continue();
      });
      const button = breakRow().getByRole('button', { name: 'Run now' });
      const runRequest = page.waitForRequest((request) => request.url().endsWith('/tools/run_check'));
      await button.click();
      expect((await runRequest).postDataJSON()).toEqual({ check: 'FI vs BPC 1000' });
      await poll(() => breakRow().locator('.board-run').isDisabled()).toBe(true);
      expect(await breakRow().locator('.board-run').textContent()).toBe('Running…');

      const history = breakRow().locator('.board-history');
      await poll(() => history.getAttribute('data-runs')).toBe('2');
      await poll(() => breakRow().locator('.board-run').isDisabled()).toBe(false);
      expect(await history.locator('.board-table tbody tr').count()).toBe(2);
      expect(await breakRow().locator('.board-message').textContent()).toMatch(/^FI vs BPC 1000: breaks\. 2024-12: breaks, difference EUR 110,000\.00/);
      await poll(() => history.locator('.board-chart[data-ready]').count()).toBe(1);
      expect((await drawnChart(history.locator('canvas'))).labels).toHaveLength(2);
      await page.unroute('**/tools/run_check');
      await screenshot(page, 'board-4-after-run');
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'filters to the breaks',
    async () => {
      await page.getByLabel('Only breaks').check();
      await poll(() => tieRow().isVisible()).toBe(false);
      expect(await breakRow().isVisible()).toBe(true);
      expect(await page.locator('.board-summary').textContent()).toBe('2 checks: 1 break, 1 tie · showing 1 break');
      await page.getByLabel('Only breaks').uncheck();
      await poll(() => tieRow().isVisible()).toBe(true);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'fits a 390 px phone: the rows stack, nothing overflows the page',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await poll(() => page.evaluate(() => document.scrollingElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Stacked: the labels show, and every field starts below the check's name.
      expect(await breakRow().locator('.board-field-status .board-label').isVisible()).toBe(true);
      const name = await breakRow().locator('.board-name').boundingBox();
      const status = await breakRow().locator('.board-field-status').boundingBox();
      const difference = await breakRow().locator('.board-field-difference').boundingBox();
      expect(status!.y).toBeGreaterThan(name!.y + name!.height - 1);
      expect(difference!.y).toBeGreaterThan(status!.y);
      const run = await breakRow().locator('.board-run').boundingBox();
      expect(run!.x + run!.width).toBeLessThanOrEqual(390);
      // A table wider than the phone scrolls inside its box and says so.
      const tables = await page.locator('.board-table-wrap').evaluateAll((wraps: any[]) =>
        wraps.map((wrap) => ({ scrolls: wrap.scrollWidth > wrap.clientWidth + 1, cue: !wrap.previousElementSibling.hidden })),
      );
      for (const table of tables) expect(table.cue).toBe(table.scrolls);
      await breakRow().locator('.board-history').scrollIntoViewIfNeeded();
      await screenshot(page, 'board-5-phone', { fullPage: true });
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 860 });
    },
    TEST_TIMEOUT,
  );

  it(
    'works in an iframe of a dashboard on another origin',
    async () => {
      // The dashboard on http://localhost:PORT, the service on http://127.0.0.1:PORT: two origins.
      const dashboard = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(`<!doctype html><title>Dashboard</title><iframe src="${service.url}app/checks#api-key=${KEY}" title="Close board" width="900" height="600"></iframe>`);
      });
      await new Promise<void>((resolve) => dashboard.listen(0, '127.0.0.1', resolve));
      try {
        await page.goto(`http://localhost:${(dashboard.address() as AddressInfo).port}/`);
        const frame = page.frameLocator('iframe');
        await poll(() => frame.locator('.board-check').count()).toBe(2);
        expect(await frame.locator('.board-check[data-check="fi_vs_bpc_1000"] .board-status').textContent()).toContain('Break');
        await screenshot(page, 'board-6-iframe');
        expect(await violations()).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        dashboard.closeAllConnections();
        await new Promise((resolve) => dashboard.close(resolve));
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'shows a tool error in the row and lets the check be run again',
    async () => {
      await openBoard();
      await poll(() => page.locator('.board-check').count()).toBe(2);
      // The check goes away behind the board's back: run_check refuses (422).
      await callTool('delete_check', { check: 'FI vs BPC 3000' });
      await tieRow().getByRole('button', { name: 'Run now' }).click();
      const message = tieRow().locator('.board-message-error');
      await poll(() => message.textContent()).toContain("No saved check is called 'FI vs BPC 3000'.");
      expect(await message.getAttribute('role')).toBe('alert');
      expect(await tieRow().locator('.board-run').isDisabled()).toBe(false);
      await screenshot(page, 'board-7-tool-error');
      expect(unexpectedErrors(422)).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

/** The month the open item was first seen in (the run's month, UTC), as its statement names it. */
async function monthOfRun(): Promise<string> {
  const at = await breakRow().locator('.board-field-last-run time').getAttribute('datetime');
  return new Date(at!).toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
}
