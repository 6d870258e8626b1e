/**
 * The web chat names periods in the catalog's fiscal year, in headless Chromium against the real
 * service and offline model: on the sample data with a catalog declaring `fiscal_year_start: 4`,
 * the first period of fiscal 2024 (2024001) reads "April 2024" in the table and on the chart's
 * axis, never "January 2024", as the text answer names it.
 * Screenshot: test/.artifacts/web/fiscal-year-by-period.png.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { drawnChart, launchBrowser, openPage, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

const BY_PERIOD = 'amount by period for company 1000';

let directory: string;
let service: RunningService;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  // The sample's catalog, its fiscal year starting in April.
  directory = mkdtempSync(path.join(tmpdir(), 'analyst-web-fiscal-'));
  const catalog = path.join(directory, 'sources.yaml');
  writeFileSync(catalog, readFileSync(path.join(projectRoot, 'data/sources.yaml'), 'utf8').replace(/^version: 1$/m, 'version: 1\nfiscal_year_start: 4'));
  service = await startService({ CATALOG: catalog });
  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser));
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

it(
  'reads period 2024001 as April 2024 in the table and the chart of a fiscal year from April',
  async () => {
    await page.goto(service.url);
    const input = page.getByLabel('Ask a question about your data');
    await input.fill(BY_PERIOD);
    await input.press('Enter');
    await expect.poll(() => page.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(1);

    const byPeriod = page.locator('.ac-turn .ac-view').first();
    const periods = await byPeriod.locator('tbody td.ac-period').allTextContents();
    expect(periods).toHaveLength(12);
    expect(periods[0]).toBe('April 2024');
    expect(periods.at(-1)).toBe('March 2025');
    expect(periods).not.toContain('January 2024');

    await expect.poll(() => byPeriod.locator('.ac-chart[data-ready]').count(), { timeout: 10_000 }).toBe(1);
    const chart = await drawnChart(byPeriod.locator('canvas'));
    expect(chart.labels).toEqual(periods);

    // The text answer, written by the service, names the months the same way.
    const answer = (await page.locator('.ac-turn .ac-answer').first().textContent()) ?? '';
    expect(answer).not.toContain('January 2024');
    await byPeriod.scrollIntoViewIfNeeded();
    await screenshot(page, 'fiscal-year-by-period');
    expect(errors).toEqual([]);
  },
  60_000,
);
