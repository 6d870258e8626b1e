/**
 * The embedding examples in headless Chromium: examples/dashboard.html (the <analyst-chat>
 * element from one module script, in a 360 px side panel) and examples/iframe.html (an iframe of
 * /embed), served from another origin than the service, as a real dashboard would be. The
 * service allows that origin with CORS_ORIGINS. Screenshots: test/.artifacts/web/embed-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startExampleServer, type ExampleServer } from '../../examples/serve.ts';
import { drawnChart, launchBrowser, openPage, paintedPixels, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

// Globals of the page, for the callbacks that run in the browser (the project type-checks without the DOM library).
declare const document: any, customElements: any, getComputedStyle: (element: unknown) => any;

const TEST_TIMEOUT = 30_000;
/** Waits for what the page shows (a loaded CI machine may need a few seconds). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });
const WHY = 'Why does FI differ from BPC for company 1000 in December 2024?';

let examples: ExampleServer;
let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

const chat = () => page.locator('analyst-chat');
const answersDone = () => page.locator('analyst-chat .ac-answer[aria-busy="false"]');

beforeAll(async () => {
  // The dashboard is on http://localhost:PORT, the service on http://127.0.0.1:PORT: two origins.
  examples = await startExampleServer({ apiUrl: 'http://127.0.0.1:1' });
  service = await startService({ CORS_ORIGINS: examples.url.replace(/\/$/, '') });
  examples.apiUrl = service.url;
  browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
  ({ page, errors } = await openPage(browser));
});

beforeEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await examples?.close();
});

describe('embedding with <analyst-chat>', () => {
  it(
    'puts the chat into the dashboard panel, untouched by the dashboard CSS',
    async () => {
      await page.goto(`${examples.url}dashboard.html`);
      await poll(() => page.evaluate(() => Boolean(customElements.get('analyst-chat') && document.querySelector('analyst-chat')?.shadowRoot))).toBe(true);
      await poll(() => page.locator('analyst-chat .ac-suggestion').count()).toBe(2);
      expect(await page.locator('analyst-chat .ac-title').textContent()).toBe('Ask the analyst');
      expect(await page.locator('analyst-chat .ac').getAttribute('data-mode')).toBe('compact');
      const box = await chat().boundingBox();
      expect(box!.width).toBeGreaterThanOrEqual(350); // the 360 px panel less its border
      expect(box!.width).toBeLessThanOrEqual(360);

      // The dashboard's global rules (serif font, uppercase yellow-on-black buttons) stay outside.
      const send = page.locator('analyst-chat .ac-send');
      const style = await send.evaluate((node) => {
        const computed = getComputedStyle(node);
        return { textTransform: computed.textTransform, color: computed.color, font: getComputedStyle(node.closest('.ac')!).fontFamily };
      });
      expect(style.textTransform).toBe('none');
      expect(style.color).toBe('rgb(255, 255, 255)');
      expect(style.font).not.toContain('Georgia');
      // The dashboard themes it through a custom property (--ac-accent: #0f766e).
      expect(await send.evaluate((node) => getComputedStyle(node).backgroundColor)).toBe('rgb(15, 118, 110)');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'answers across origins with the API key, shows tool calls, tables and a chart',
    async () => {
      // The service lets the dashboard's origin call it (CORS_ORIGINS), preflight included.
      const origin = examples.url.replace(/\/$/, '');
      const preflight = await fetch(`${service.url}chat`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.headers.get('access-control-allow-origin'), `CORS_ORIGINS=${origin} must allow the dashboard to call POST /chat`).toBe(origin);
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/authorization/);

      await chat().evaluate((element) => element.setAttribute('api-key', 'dashboard-key'));
      const chatRequest = page.waitForRequest((request) => request.url() === `${service.url}chat` && request.method() === 'POST');
      await page.getByRole('button', { name: WHY }).click();
      const request = await chatRequest;
      expect(request.headers().authorization).toBe('Bearer dashboard-key');
      expect(request.postDataJSON()).not.toHaveProperty('locale'); // the dashboard chose none
      expect(new URL(page.url()).origin).not.toBe(new URL(service.url).origin);

      await expect.poll(() => answersDone().count(), { timeout: 15_000 }).toBe(1);
      expect(await page.locator('analyst-chat .ac-answer').textContent()).toContain('110,000.00 EUR');
      expect(await page.locator('analyst-chat .ac-tool-name').allTextContents()).toEqual(['compare_sources', 'explain_difference']);
      const totals = page.locator('analyst-chat .ac-view', { hasText: 'totals' }).first();
      expect(await totals.locator('tbody td').allTextContents()).toEqual(['EUR', '443,100', '333,100', '110,000', '+24.8%']);
      await poll(() => page.locator('analyst-chat .ac-chart[data-ready]').count()).toBeGreaterThanOrEqual(2);
      expect(await paintedPixels(page, 'analyst-chat .ac-view:has-text("largest differences") canvas')).toBeGreaterThan(1000);
      // Focus stays in the chat's question box (inside the shadow root).
      expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName)).toBe('TEXTAREA');
      await screenshot(page, 'embed-1-dashboard-answer');
      await page.locator('analyst-chat .ac-view', { hasText: 'largest differences' }).first().scrollIntoViewIfNeeded();
      await screenshot(page, 'embed-2-dashboard-chart');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'finds the conversation again after a reload, and fits a 360 px wide window',
    async () => {
      await page.reload();
      await poll(() => page.locator('analyst-chat .ac-turn').count()).toBe(1);
      expect(await page.locator('analyst-chat .ac-question').textContent()).toContain(WHY);
      expect(await page.locator('analyst-chat .ac-tool-name').count()).toBe(2);

      await page.setViewportSize({ width: 360, height: 740 });
      await chat().scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      const input = await page.locator('analyst-chat .ac-input').boundingBox();
      const send = await page.locator('analyst-chat .ac-send').boundingBox();
      expect(input!.x).toBeGreaterThanOrEqual(0);
      expect(send!.x + send!.width).toBeLessThanOrEqual(360);
      await screenshot(page, 'embed-3-dashboard-narrow');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

describe('the locale attribute', () => {
  it(
    'is sent with each question and formats periods and numbers in the dashboard\'s locale',
    async () => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await chat().evaluate((element) => element.setAttribute('locale', 'de-DE'));
      // The chat comes back with the conversation, now in German format.
      await poll(() => page.locator('analyst-chat .ac-turn').count()).toBe(1);
      const totals = page.locator('analyst-chat .ac-view', { hasText: 'totals' }).first();
      expect((await totals.locator('tbody td').allTextContents()).map((text) => text.replace(/\u00a0/g, ' '))).toEqual(['EUR', '443.100', '333.100', '110.000', '+24,8 %']);

      const input = page.locator('analyst-chat .ac-input');
      await input.fill('amount by period for company 1000 in Q4 2024');
      const chatRequest = page.waitForRequest((request) => request.url() === `${service.url}chat` && request.method() === 'POST');
      await input.press('Enter');
      expect((await chatRequest).postDataJSON()).toMatchObject({ locale: 'de-DE' });
      await expect.poll(() => answersDone().count(), { timeout: 15_000 }).toBe(2);
      expect(await page.locator('analyst-chat .ac-answer').last().textContent()).toContain('443.100,00 EUR');
      const byPeriod = page.locator('analyst-chat .ac-turn').last().locator('.ac-view').first();
      expect(await byPeriod.locator('tbody td').allTextContents()).toEqual(['Oktober 2024', 'EUR', '370.900', 'November 2024', 'EUR', '359.800', 'Dezember 2024', 'EUR', '443.100']);
      await poll(() => byPeriod.locator('.ac-chart[data-ready]').count()).toBe(1);
      const chart = await drawnChart(byPeriod.locator('canvas'), `${service.url}vendor/chart.js`);
      expect(chart.labels).toEqual(['Oktober 2024', 'November 2024', 'Dezember 2024']);
      await byPeriod.scrollIntoViewIfNeeded();
      await screenshot(page, 'embed-5-dashboard-de-DE');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

describe('embedding with an iframe of /embed', () => {
  it(
    'runs the compact chat inside the frame',
    async () => {
      await page.setViewportSize({ width: 1000, height: 760 });
      await page.goto(`${examples.url}iframe.html`);
      const frame = page.frameLocator('iframe');
      expect(await frame.locator('.ac-title').textContent()).toBe('Ask the analyst');
      expect(await frame.locator('.ac').getAttribute('data-mode')).toBe('compact');
      const input = frame.getByLabel('Ask a question about your data');
      await input.fill('amount by period for company 1000 in Q4 2024');
      await input.press('Enter');
      await expect.poll(() => frame.locator('.ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(1);
      expect(await frame.locator('.ac-view tbody td').allTextContents()).toEqual(['October 2024', 'EUR', '370,900', 'November 2024', 'EUR', '359,800', 'December 2024', 'EUR', '443,100']);
      await poll(() => frame.locator('.ac-chart[data-ready]').count()).toBe(1);
      expect(await frame.locator('.ac-tool-name').allTextContents()).toEqual(['query_source']);
      await screenshot(page, 'embed-4-iframe');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
