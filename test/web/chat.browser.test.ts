/**
 * The chat page (GET /) in headless Chromium against the real service and the offline model:
 * what a user sees when asking, watching the answer stream, opening tool calls, reading tables
 * and charts, taking results as CSV, reloading, starting over, stopping an answer, and in a
 * 360 px wide window. Screenshots: test/.artifacts/web/page-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  openPage,
  paintedPixels,
  recordStreaming,
  screenshot,
  startService,
  startSlowStreamProxy,
  streamingRecord,
  type Browser,
  type RunningService,
} from './support/browser.ts';

// Globals of the page, for the callbacks that run in the browser (the project type-checks without the DOM library).
declare const document: any, localStorage: any, navigator: any;

const COMPARE = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
const TEST_TIMEOUT = 30_000;
/** Waits for what the page shows (a loaded CI machine may need a few seconds). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });

let service: RunningService;
/** The page is opened through this proxy: streamed answers arrive an event every 20 ms. */
let proxy: { url: string; close(): Promise<void> };
let browser: Browser;
let page: Page;
let errors: string[];

const storageKey = () => `analyst-chat:session:${proxy.url}`;
const input = () => page.getByLabel('Ask a question about your data');
const lastAnswerDone = () => page.locator('.ac-turn .ac-answer[aria-busy="false"]');

async function ask(question: string): Promise<void> {
  const turns = await page.locator('.ac-turn').count();
  await input().fill(question);
  await input().press('Enter');
  await expect.poll(() => lastAnswerDone().count(), { timeout: 15_000 }).toBe(turns + 1);
}

beforeAll(async () => {
  service = await startService();
  proxy = await startSlowStreamProxy(service.url, 20);
  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser));
});

beforeEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await service?.close();
});

describe('the chat page', () => {
  it(
    'opens ready to type: focus in the question box, example questions, a strict CSP and no errors',
    async () => {
      const response = await page.goto(proxy.url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      await poll(() => page.locator('.ac-suggestion').count()).toBeGreaterThan(0);
      expect(await page.locator('h1').textContent()).toBe('Data analyst');
      await screenshot(page, 'page-1-empty');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'streams the answer, lists the tool calls, renders tables and a Chart.js chart',
    async () => {
      await recordStreaming(page);
      const vendorRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/vendor/')) vendorRequests.push(new URL(request.url()).pathname);
      });
      await ask(COMPARE);

      // The answer arrived in pieces (each shown as it came), marked busy meanwhile.
      const streamed = await streamingRecord(page);
      expect(streamed.busy).toBe(true);
      expect(streamed.texts.length).toBeGreaterThan(3);
      expect(streamed.texts[0]!.length).toBeLessThan(streamed.texts.at(-1)!.length);
      const answer = page.locator('.ac-turn .ac-answer').last();
      await poll(() => answer.textContent()).toContain('difference: 110,000.00 EUR');
      expect(await answer.locator('li').count()).toBeGreaterThan(0); // "- " lines became a list

      // Focus stayed in the question box, which is empty again.
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      expect(await input().inputValue()).toBe('');

      // Each tool call, with its status and duration, opens to its arguments and result.
      const tools = page.locator('.ac-tool');
      expect(await tools.locator('.ac-tool-name').allTextContents()).toEqual(['compare_sources', 'explain_difference']);
      expect(await tools.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-status')))).toEqual(['ok', 'ok']);
      expect(await tools.first().locator('.ac-tool-time').textContent()).toMatch(/\d (ms|s)$/); // a duration; how long depends on the machine
      expect(await tools.first().locator('.ac-tool-body').isVisible()).toBe(false);
      await tools.first().locator('summary').focus();
      await page.keyboard.press('Enter'); // keyboard opens it
      const body = tools.first().locator('.ac-tool-body');
      await poll(() => body.isVisible()).toBe(true);
      const code = await body.locator('pre').allTextContents();
      expect(JSON.parse(code[0]!)).toMatchObject({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' });
      expect(JSON.parse(code[1]!)).toMatchObject({ summary: { major_diff: 1 } });

      // Tables with thousands separators, statuses as badges.
      const totals = page.locator('.ac-view', { hasText: 'totals' }).first();
      expect(await totals.locator('th').allTextContents()).toEqual(['Currency', 'fi_reporting', 'bpc_reporting', 'Difference', 'Difference %']);
      expect(await totals.locator('tbody td').allTextContents()).toEqual(['EUR', '443,100', '333,100', '110,000', '+24.8%']);
      const differences = page.locator('.ac-view', { hasText: 'largest differences' }).first();
      expect(await differences.locator('.ac-status').allTextContents()).toEqual(['Major difference']);
      const byAccount = page.locator('.ac-view', { hasText: 'Gap by group account' }).first();
      expect(await byAccount.locator('tbody td').allTextContents()).toEqual(['G4000000', '2,036,800', '1,926,800', '110,000', '100.0%']);

      // Charts drawn by Chart.js, loaded from /vendor (node_modules), on real canvases.
      await poll(() => page.locator('.ac-chart[data-ready]').count()).toBeGreaterThanOrEqual(2);
      expect(await paintedPixels(page, '.ac-view:has-text("largest differences") canvas')).toBeGreaterThan(2000);
      expect(vendorRequests).toEqual(expect.arrayContaining(['/vendor/chart.js', '/vendor/chart-helpers.js', '/vendor/kurkle-color.js']));
      expect(await page.evaluate(() => document.querySelector('canvas')?.getAttribute('role'))).toBe('img');

      // The session is remembered for this API.
      expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toMatch(/^[0-9a-f-]{36}$/);
      await screenshot(page, 'page-2-answer');
      await totals.scrollIntoViewIfNeeded();
      await screenshot(page, 'page-3-tables-and-chart');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'copies and downloads a result as CSV with proper quoting',
    async () => {
      const totals = page.locator('.ac-view', { hasText: 'totals' }).first();
      const expected = 'Currency,fi_reporting,bpc_reporting,Difference,Difference %\r\nEUR,443100,333100,110000,24.83\r\n';

      await totals.getByRole('button', { name: 'Copy CSV' }).click();
      await poll(() => totals.getByRole('button', { name: 'Copied' }).count()).toBe(1);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected);

      const [download] = await Promise.all([page.waitForEvent('download'), totals.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toBe('totals-fi_reporting-bpc_reporting.csv');
      const file = await download.path();
      expect(readFileSync(file, 'utf8')).toBe(`\ufeff${expected}`);

      // Fields with commas, quotes, line breaks, blanks and formula-like text.
      const csv = await page.evaluate(`import('/app/csv.js').then((m) => m.toCsv(
        [{ key: 'name', label: 'Name, full' }, { key: 'note', label: 'Note' }, { key: 'amount', label: 'Amount' }],
        [{ name: 'Smith, "Jo"', note: 'line 1\\nline 2', amount: -1234.5 }, { name: '=SUM(A1)', note: null, amount: 0 }, { name: ' padded', note: 'plain', amount: null }]))`);
      expect(csv).toBe('"Name, full",Note,Amount\r\n"Smith, ""Jo""","line 1\nline 2",-1234.5\r\n\'=SUM(A1),,0\r\n" padded",plain,\r\n');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'keeps the conversation across a reload and continues it in the same session',
    async () => {
      const sessionId = await page.evaluate((key) => localStorage.getItem(key), storageKey());
      await page.reload();
      await poll(() => page.locator('.ac-turn').count()).toBe(1);
      expect(await page.locator('.ac-question').textContent()).toContain(COMPARE);
      expect(await page.locator('.ac-answer').textContent()).toContain('difference: 110,000.00 EUR');
      expect(await page.locator('.ac-tool-name').allTextContents()).toEqual(['compare_sources', 'explain_difference']);
      expect(await page.locator('.ac-view', { hasText: 'totals' }).locator('tbody td').allTextContents()).toEqual(['EUR', '443,100', '333,100', '110,000', '+24.8%']);
      await poll(() => page.locator('.ac-chart[data-ready]').count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('.ac-suggestion').count()).toBe(0);

      await ask('and for company 3000 in October?');
      expect(await page.locator('.ac-turn').count()).toBe(2);
      expect(await page.locator('.ac-answer').last().textContent()).toContain('company 3000');
      expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBe(sessionId);
      await screenshot(page, 'page-4-restored-and-follow-up');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'Shift+Enter adds a line, Escape stops a running answer, errors are shown, New chat starts over',
    async () => {
      await input().fill('first line');
      await input().press('Shift+Enter');
      await input().pressSequentially('second line');
      expect(await input().inputValue()).toBe('first line\nsecond line');

      await input().fill('');

      // Escape in the middle of a streamed answer stops it; what arrived stays.
      await input().fill(COMPARE);
      await input().press('Enter');
      await poll(() => page.locator('.ac-send').textContent()).toBe('Stop');
      await page.locator('.ac-turn').last().locator('.ac-streaming').waitFor({ timeout: 10_000 });
      await screenshot(page, 'page-6-streaming');
      await page.keyboard.press('Escape');
      await poll(() => page.locator('.ac-meta').last().textContent()).toContain('Stopped');
      expect(await page.locator('.ac-send').textContent()).toBe('Send');
      const partial = (await page.locator('.ac-answer').last().textContent()) ?? '';
      expect(partial.length).toBeGreaterThan(0);
      expect(partial).not.toContain('of the gap)'); // cut short: the whole answer ends with it
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');

      // A problem response is shown as an alert.
      await page.route('**/chat', (route) =>
        route.fulfill({
          status: 502,
          contentType: 'application/problem+json',
          body: JSON.stringify({ type: '/problems/model-unavailable', title: 'The model provider failed', status: 502, detail: 'Upstream said no.' }),
        }),
      );
      await ask('anything');
      expect(await page.getByRole('alert').last().textContent()).toBe('The model provider failed Upstream said no.');
      await page.unroute('**/chat');

      await page.getByRole('button', { name: 'New chat' }).click();
      expect(await page.locator('.ac-turn').count()).toBe(0);
      expect(await page.locator('.ac-suggestion').count()).toBeGreaterThan(0);
      expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      expect(errors.filter((e) => !e.includes('502'))).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'marks a failed tool call and shows its error when opened',
    async () => {
      await ask('amount in fi_reporting for company 9999 in December 2024');
      const tool = page.locator('.ac-turn').last().locator('.ac-tool');
      expect(await tool.getAttribute('data-status')).toBe('error');
      expect(await tool.locator('summary').textContent()).toContain(', failed');
      await tool.locator('summary').click();
      expect(await tool.locator('.ac-tool-error').textContent()).toContain("unknown_value: No row of 'fi_reporting' has company = '9999'");
      expect(await page.locator('.ac-turn').last().locator('.ac-view').count()).toBe(0);
      expect(await page.locator('.ac-answer').last().textContent()).toContain("Values of company: '1000', '2000', '3000'");
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'starts fresh when the stored session is gone (404)',
    async () => {
      await page.evaluate((key) => localStorage.setItem(key, '00000000-0000-4000-8000-000000000000'), storageKey());
      await page.reload();
      await poll(() => page.locator('.ac-suggestion').count()).toBeGreaterThan(0);
      expect(await page.locator('.ac-turn').count()).toBe(0);
      expect(await page.evaluate((key) => localStorage.getItem(key), storageKey())).toBeNull();
      // The browser logs the 404 of GET /sessions/{id} as a failed resource; nothing else.
      expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'fits a 360 px wide window: no sideways scrolling, the question box and Send stay in view',
    async () => {
      await page.setViewportSize({ width: 360, height: 740 });
      await page.reload();
      await ask('amount by period for company 1000 in Q4 2024');
      await poll(() => page.locator('.ac-chart[data-ready]').count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      for (const locator of [input(), page.locator('.ac-send'), page.getByRole('button', { name: 'New chat' })]) {
        const box = await locator.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(360);
        expect(box!.y + box!.height).toBeLessThanOrEqual(740);
      }
      const table = page.locator('.ac-view').first().locator('tbody td');
      expect(await table.allTextContents()).toEqual(['October 2024', 'EUR', '370,900', 'November 2024', 'EUR', '359,800', 'December 2024', 'EUR', '443,100']);
      await page.locator('.ac-view').first().scrollIntoViewIfNeeded();
      await screenshot(page, 'page-5-narrow-360');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
