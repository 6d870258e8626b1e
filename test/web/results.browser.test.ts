/**
 * Labels a reader can trust, in headless Chromium against the real service and offline model:
 * a comparison of one source with itself (ACTUAL vs BUDGET) names its sides by what differs in
 * the tables, the chart legend, the CSV header and the CSV file name; difference percentages
 * carry their sign; periods read the same in the table, the chart and the answer; and with
 * `locale=de-DE` the chat asks for German numbers and shows German months and numbers itself.
 * Screenshots: test/.artifacts/web/results-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { drawnChart, launchBrowser, openPage, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

// Globals of the page, for the callbacks that run in the browser (the project type-checks without the DOM library).
declare const navigator: any, localStorage: any;

const ACTUAL_VS_BUDGET = 'compare actual and budget in consolidation_mart for company 1000 in 2024';
const BY_PERIOD = 'amount by period for company 1000 in Q4 2024';
const TEST_TIMEOUT = 30_000;
/** Waits for what the page shows (a loaded CI machine may need a few seconds). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });
/** Intl writes the space before `%` and some others as no-break spaces; compare as a reader reads. */
const plain = (texts: string[]) => texts.map((text) => text.replace(/[\u00a0\u202f\u2009]/g, ' '));

let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

/** Asks in the chat at `page` and returns the POST /chat request it sent. */
async function ask(question: string): Promise<Request> {
  const turns = await page.locator('.ac-turn').count();
  const input = page.getByLabel('Ask a question about your data');
  await input.fill(question);
  const sent = page.waitForRequest((request) => request.url() === `${service.url}chat` && request.method() === 'POST');
  await input.press('Enter');
  const request = await sent;
  await expect.poll(() => page.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(turns + 1);
  return request;
}

const lastTurn = () => page.locator('.ac-turn').last();
const view = (title: string) => lastTurn().locator('.ac-view', { hasText: title }).first();
const headers = (locator: Locator) => locator.locator('thead th').allTextContents();
const row = (locator: Locator, index: number) => locator.locator('tbody tr').nth(index).locator('td').allTextContents();

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser));
});

beforeEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('a comparison of one source with itself (en-US)', () => {
  it(
    'names the sides ACTUAL and BUDGET in the tables, the chart legend and the tool call',
    async () => {
      await page.goto(service.url);
      const request = await ask(ACTUAL_VS_BUDGET);
      expect(request.postDataJSON()).not.toHaveProperty('locale'); // no locale chosen: the service's default

      // The offline model compared consolidation_mart with itself, ACTUAL against BUDGET.
      const tool = lastTurn().locator('.ac-tool').first();
      await tool.locator('summary').click();
      expect(JSON.parse((await tool.locator('pre').first().textContent()) ?? '{}')).toMatchObject({
        source_a: 'consolidation_mart',
        source_b: 'consolidation_mart',
        filters_a: { version: 'ACTUAL' },
        filters_b: { version: 'BUDGET' },
      });
      // The tool row says what the call did, the sides named as in the tables.
      expect(plain([(await tool.locator('.ac-tool-desc').textContent()) ?? ''])).toEqual(['Compared consolidation_mart ACTUAL with consolidation_mart BUDGET for company 1000, January – December 2024 · amount']);
      await tool.locator('summary').click();

      const totals = view('totals');
      expect(await totals.locator('.ac-view-title').textContent()).toContain('consolidation_mart ACTUAL vs consolidation_mart BUDGET: totals');
      expect(await headers(totals)).toEqual(['Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %']);
      expect(await row(totals, 0)).toEqual(['EUR', '3,451,000', '3,480,000', '-29,000', '-0.8%']);

      const differences = view('largest differences');
      expect(await headers(differences)).toEqual(['Company', 'Period', 'Currency', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Difference %', 'Status']);
      expect(await row(differences, 0)).toEqual(['1000', 'September 2024', 'EUR', '402,800', '322,000', '80,800', '+20.1%', 'Major difference']);
      expect(await row(differences, 1)).toEqual(['1000', 'March 2024', 'EUR', '240,600', '306,000', '-65,400', '-27.2%', 'Major difference']);
      expect(await differences.locator('tbody tr').nth(1).locator('td.ac-neg').allTextContents()).toEqual(['-65,400', '-27.2%']);

      // Every percentage has the sign of its difference.
      const rows = await differences.locator('tbody tr').evaluateAll((trs) => trs.map((tr: any) => [...tr.querySelectorAll('td')].map((td: any) => td.textContent)));
      expect(rows.length).toBeGreaterThanOrEqual(5);
      for (const cells of rows) expect(cells[6]![0], cells.join(' | ')).toBe(cells[5]!.startsWith('-') ? '-' : '+');

      // The chart's legend names the sides as the table does; its axis reads periods as the table does.
      await poll(() => differences.locator('.ac-chart[data-ready]').count()).toBe(1);
      const chart = await drawnChart(differences.locator('canvas'));
      expect(chart.legend).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
      expect(chart.labels.slice(0, 2)).toEqual(['September 2024', 'March 2024']);
      expect(chart.ticks).toContain('400,000');
      expect(await lastTurn().locator('canvas').first().getAttribute('aria-label')).toContain('consolidation_mart ACTUAL vs consolidation_mart BUDGET');

      // A period reads the same in the table as in the answer text ("period September 2024 (2024009): …").
      const answer = (await lastTurn().locator('.ac-answer').textContent()) ?? '';
      const periods = await differences.locator('tbody tr td:nth-child(2)').allTextContents();
      for (const period of periods.slice(0, 3)) expect(answer).toContain(`period ${period} (`);

      const byAccount = view('Gap by group account');
      expect(await headers(byAccount)).toEqual(['Group account', 'consolidation_mart ACTUAL', 'consolidation_mart BUDGET', 'Difference', 'Share of gap']);

      await differences.scrollIntoViewIfNeeded();
      await screenshot(page, 'results-1-actual-vs-budget');
      await totals.scrollIntoViewIfNeeded();
      await screenshot(page, 'results-2-actual-vs-budget-totals');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'writes the same names into the CSV header and file name, periods as name and code',
    async () => {
      const totals = view('totals');
      const [download] = await Promise.all([page.waitForEvent('download'), totals.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toBe('totals-consolidation_mart-ACTUAL-consolidation_mart-BUDGET.csv');
      expect(readFileSync(await download.path(), 'utf8')).toBe(
        '\ufeffCurrency,consolidation_mart ACTUAL,consolidation_mart BUDGET,Difference,Difference %\r\nEUR,3451000,3480000,-29000,-0.84\r\n',
      );

      const differences = view('largest differences');
      await differences.getByRole('button', { name: 'Copy CSV' }).click();
      await poll(() => differences.getByRole('button', { name: 'Copied' }).count()).toBe(1);
      const lines = (await page.evaluate(() => navigator.clipboard.readText())).split('\r\n');
      expect(lines[0]).toBe('Company,Period,Period code,Currency,consolidation_mart ACTUAL,consolidation_mart BUDGET,Difference,Difference %,Status');
      expect(lines[1]).toBe('1000,September 2024,2024009,EUR,402800,322000,80800,20.059583,major_diff');
      expect(lines[2]).toBe('1000,March 2024,2024003,EUR,240600,306000,-65400,-27.182045,major_diff');
      const [differencesFile] = await Promise.all([page.waitForEvent('download'), differences.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(differencesFile.suggestedFilename()).toBe('differences-consolidation_mart-ACTUAL-consolidation_mart-BUDGET.csv');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

describe('with locale=de-DE', () => {
  it(
    'asks for German numbers and shows German months and numbers in tables and charts',
    async () => {
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${service.url}embed#locale=de-DE`);
      const request = await ask(ACTUAL_VS_BUDGET);
      expect(request.postDataJSON()).toMatchObject({ message: ACTUAL_VS_BUDGET, locale: 'de-DE' });
      expect(await lastTurn().locator('.ac-answer').textContent()).toContain('3.451.000,00 EUR'); // the service's answer, in German format

      const totals = view('totals');
      expect(plain(await row(totals, 0))).toEqual(['EUR', '3.451.000', '3.480.000', '-29.000', '-0,8 %']);
      const differences = view('largest differences');
      expect(plain(await row(differences, 1))).toEqual(['1000', 'März 2024', 'EUR', '240.600', '306.000', '-65.400', '-27,2 %', 'Major difference']);
      await poll(() => differences.locator('.ac-chart[data-ready]').count()).toBe(1);
      const chart = await drawnChart(differences.locator('canvas'));
      expect(chart.labels.slice(0, 4)).toEqual(['September 2024', 'März 2024', 'Juni 2024', 'Oktober 2024']);
      expect(chart.legend).toEqual(['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']);
      expect(chart.ticks).toContain('400.000');
      await differences.scrollIntoViewIfNeeded();
      await screenshot(page, 'results-3-de-DE-comparison');

      await ask(BY_PERIOD);
      const byPeriod = lastTurn().locator('.ac-view').first();
      expect(await byPeriod.locator('tbody td').allTextContents()).toEqual(['Oktober 2024', 'EUR', '370.900', 'November 2024', 'EUR', '359.800', 'Dezember 2024', 'EUR', '443.100']);
      await poll(() => byPeriod.locator('.ac-chart[data-ready]').count()).toBe(1);
      const periods = await drawnChart(byPeriod.locator('canvas'));
      expect(periods.labels).toEqual(['Oktober 2024', 'November 2024', 'Dezember 2024']);
      expect(periods.ticks).toContain('400.000');
      await byPeriod.scrollIntoViewIfNeeded();
      await screenshot(page, 'results-4-de-DE-by-period');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'formats in en-US and sends no locale when the option is not a language tag',
    async () => {
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${service.url}embed#locale=de_DE`);
      await page.reload(); // only the fragment changed: load the page with it
      const request = await ask(BY_PERIOD);
      expect(request.postDataJSON()).not.toHaveProperty('locale');
      expect(await lastTurn().locator('.ac-view tbody td').first().textContent()).toBe('October 2024');
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
