/**
 * The chat as a front door, in headless Chromium at 1366 and 390 px against the real service and
 * the offline model: an answer that states one figure shows the figure, its table one click away;
 * a comparison on a phone keeps its key and Difference columns in sight and says the table
 * scrolls; amounts in several currencies get a chart per currency; tool rows say what the call
 * did, never an internal comparison id; a breakdown that is one "(blank)" row is not shown as an
 * explanation. Screenshots: test/.artifacts/web/proportion-*.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { drawnChart, launchBrowser, openPage, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

const ONE_FIGURE = 'What is FI revenue for company 1000 in December 2024?';
const COMPARE_AND_EXPLAIN = 'Compare fi_reporting with bpc_reporting for company 1000 in December 2024 and explain the difference';
const BY_COMPANY = 'amount by company in fi_reporting for December 2024';
const TEST_TIMEOUT = 40_000;
const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

async function ask(question: string): Promise<void> {
  const turns = await page.locator('.ac-turn').count();
  const input = page.getByLabel('Ask a question about your data');
  await input.fill(question);
  await input.press('Enter');
  await expect.poll(() => page.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 20_000 }).toBe(turns + 1);
}

/** Opens a fresh chat at `viewport`. */
async function freshChat(viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await page.goto(service.url);
  await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
  await page.reload();
}

const lastTurn = () => page.locator('.ac-turn').last();

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser({ viewport: DESKTOP });
  ({ page, errors } = await openPage(browser));
});

beforeEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('a one-figure answer', () => {
  for (const viewport of [DESKTOP, PHONE]) {
    it(
      `shows the figure above the fold and its table one click away (${viewport.width} px)`,
      async () => {
        await freshChat(viewport);
        await ask(ONE_FIGURE);
        const figure = lastTurn().locator('.ac-answer .ac-figure', { hasText: '2,036,800' });
        await expect.poll(() => figure.isVisible()).toBe(true);
        const box = (await figure.boundingBox())!;
        expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);

        // No table or chart below the answer until asked for.
        const views = lastTurn().locator('.ac-view');
        expect(await views.count()).toBeGreaterThan(0);
        expect(await views.first().isVisible()).toBe(false);
        expect(await lastTurn().locator('.ac-chart canvas').filter({ visible: true }).count()).toBe(0);
        const toggle = lastTurn().locator('.ac-more > summary');
        expect(await toggle.textContent()).toMatch(/^Show table/);
        await screenshot(page, `proportion-one-figure-${viewport.width}`);

        await toggle.click();
        await expect.poll(() => views.first().isVisible()).toBe(true);
        expect(await views.first().locator('tbody td').allTextContents()).toEqual(['EUR', '2,036,800']);
        // The tool row says what the call read.
        expect(await lastTurn().locator('.ac-tool-desc').first().textContent()).toBe('Read fi_reporting for group account G4000000, company 1000, December 2024');
        expect(errors).toEqual([]);
      },
      TEST_TIMEOUT,
    );
  }
});

describe('a comparison on a phone (390 px)', () => {
  it(
    'keeps the key and Difference columns in sight, says the table scrolls, and names calls by what they did',
    async () => {
      await freshChat(PHONE);
      await ask(COMPARE_AND_EXPLAIN);
      // Several figures: the tables are shown, not folded.
      expect(await lastTurn().locator('.ac-more').count()).toBe(0);
      const view = lastTurn().locator('.ac-view', { hasText: 'largest differences' }).first();
      await view.scrollIntoViewIfNeeded();
      const wrap = view.locator('.ac-table-wrap');
      await expect.poll(() => wrap.getAttribute('data-scrolls')).toBe('');
      expect(await view.locator('.ac-scroll-cue').isVisible()).toBe(true);
      expect(await view.locator('.ac-scroll-cue').textContent()).toContain('Scroll sideways');

      const header = async (text: string) => (await view.locator('thead th', { hasText: text }).first().boundingBox())!;
      const cell = async (selector: string) => (await view.locator(`tbody tr:first-child td${selector}`).boundingBox())!;
      for (const box of [await header('Company'), await header('Difference'), await cell('.ac-key'), await cell('.ac-diff')]) {
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
      expect(await view.locator('tbody tr:first-child td.ac-key').textContent()).toBe('1000');
      expect(await view.locator('tbody tr:first-child td.ac-diff').textContent()).toBe('110,000');
      await screenshot(page, 'proportion-compare-390');

      // Scrolled to its end, the Status column is reachable and the key column still in sight.
      await wrap.evaluate((element: { scrollLeft: number; scrollWidth: number }) => {
        element.scrollLeft = element.scrollWidth;
      });
      const status = (await view.locator('tbody tr:first-child td').last().boundingBox())!;
      expect(status.x + status.width).toBeLessThanOrEqual(PHONE.width + 1);
      expect((await cell('.ac-key')).x).toBeGreaterThanOrEqual(0);
      expect(await view.locator('tbody tr:first-child td').last().textContent()).toBe('Major difference');

      // Tool rows: what each call did, never the internal comparison id.
      const descriptions = await lastTurn().locator('.ac-tool-desc').allTextContents();
      expect(descriptions).toEqual(['Compared fi_reporting with bpc_reporting for company 1000, December 2024 · amount', 'Explained the gap between fi_reporting and bpc_reporting']);
      expect(descriptions.join(' ')).not.toMatch(/cmp_/);
      // On a phone the row shows what the call did in place of the tool's name.
      expect(await lastTurn().locator('.ac-tool-desc').first().isVisible()).toBe(true);
      expect(await lastTurn().locator('.ac-tool-name').first().isVisible()).toBe(false);

      // A breakdown of one "(blank)" row is no explanation: said in words, not shown as a table.
      const titles = await lastTurn().locator('.ac-view-title').allTextContents();
      expect(titles.some((title) => title.startsWith('Gap by partner company'))).toBe(false);
      expect(await lastTurn().locator('.ac-notes li').allTextContents()).toContain('Partner company is blank on every row of the gap, so it does not explain it.');
      // Notes in words: no JSON.
      expect((await lastTurn().locator('.ac-notes').allTextContents()).join(' ')).not.toMatch(/[{}"]/);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

describe('amounts in several currencies', () => {
  it(
    'get a chart per currency, each axis titled with its one currency',
    async () => {
      await freshChat(DESKTOP);
      await ask(BY_COMPANY);
      // Company 1000 books in EUR, 2000 in USD, 3000 in GBP: one table, a chart per currency.
      const view = lastTurn().locator('.ac-view', { hasText: 'fi_reporting by company' }).first();
      expect(await view.locator('tbody tr').count()).toBe(3);
      const charts = view.locator('.ac-chart');
      await expect.poll(() => view.locator('.ac-chart[data-ready]').count(), { timeout: 10_000 }).toBe(3);
      expect(await charts.evaluateAll((boxes) => boxes.map((box) => (box as unknown as { dataset: { unit: string } }).dataset.unit))).toEqual(['EUR', 'USD', 'GBP']);
      for (const [index, [company, unit]] of [['1000', 'EUR'], ['2000', 'USD'], ['3000', 'GBP']].entries()) {
        const canvas = charts.nth(index).locator('canvas');
        expect((await drawnChart(canvas)).labels).toEqual([company]);
        expect(await canvas.getAttribute('aria-label')).toContain(`(${unit})`);
      }
      await view.scrollIntoViewIfNeeded();
      await screenshot(page, 'proportion-currencies-1366');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
