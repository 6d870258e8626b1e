/**
 * The web chat draws compare_periods' presentation without knowing the tool: in headless
 * Chromium against the real service and offline model, a movement question shows the ranked
 * movements as a table with the periods as column headers, and a bar chart of the change.
 * Screenshot: test/.artifacts/web/movement-analysis-1.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { drawnChart, launchBrowser, openPage, screenshot, startService, type Browser, type RunningService } from '../web/support/browser.ts';

let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  service = await startService();
  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser));
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

it('shows the movements of company 1000 by account as a table and a bar chart', async () => {
  await page.goto(service.url);
  const input = page.getByLabel('Ask a question about your data');
  await input.fill('what drove the change from November to December by account for company 1000 in FI?');
  await input.press('Enter');
  await expect.poll(() => page.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(1);
  const turn = page.locator('.ac-turn').last();
  const view = turn.locator('.ac-view', { hasText: 'Movements by group account' }).first();
  expect(await view.locator('thead th').allTextContents()).toEqual(['Group account', 'Currency', 'November 2024', 'December 2024', 'Change', 'Change %', 'Share of change %', 'Role']);
  const first = await view.locator('tbody tr').first().locator('td').allTextContents();
  expect(first.slice(0, 5)).toEqual(['G4000000', 'EUR', '1,963,800', '2,036,800', '73,000']);
  await expect.poll(() => view.locator('.ac-chart[data-ready]').count(), { timeout: 10_000 }).toBe(1);
  const chart = await drawnChart(view.locator('canvas'));
  expect(chart.labels[0]).toBe('G4000000');
  expect(chart.legend).toEqual(['Change (EUR)']);
  await screenshot(page, 'movement-analysis-1');
  expect(errors).toEqual([]);
}, 40_000);
