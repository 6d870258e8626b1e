/**
 * Receipts in the web chat, in headless Chromium against the real service and offline model:
 * asked why FI differs from BPC, the answer's figures are buttons; hovering, focusing or clicking
 * "443,100.00" opens its receipt (compare_sources, fi_reporting vs bpc_reporting, company 1000,
 * December 2024, the row), which is also the button's accessible description; no figure of the
 * offline model's answer is unverified, and the answer's text is still exactly the answer. A
 * crafted answer with an invented figure, rendered by the same modules, is marked plainly; and a
 * real model (the scripted OpenAI-wire mock) that invents a figure and repeats it after the repair
 * turn gets its first answer shown as replaced and the figure marked unverified in the chat; a
 * figure the next answer quotes from that turn's result opens the earlier call's receipt. The
 * <analyst-chat> element opens receipts the same way inside its shadow root.
 * Screenshots: test/.artifacts/web/receipt-open.png, receipt-unverified.png.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';
import { launchBrowser, openPage, screenshot, startService, type Browser, type RunningService } from './support/browser.ts';

const WHY = 'Why does FI differ from BPC for company 1000 in December 2024?';
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 });

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
  await modelService?.close();
  await mock?.close();
});

let mock: MockOpenAI;
let modelService: RunningService;

/** The text of the receipt the figure button describes itself with, and whether it shows. */
async function receiptOf(figure: ReturnType<Page['locator']>): Promise<{ text: string; visible: boolean }> {
  const id = await figure.getAttribute('aria-describedby');
  expect(id).toBeTruthy();
  const receipt = page.locator(`[id="${id}"]`);
  return { text: (await receipt.textContent()) ?? '', visible: await receipt.isVisible() };
}

it(
  'opens the receipt of a figure by hover, keyboard and click, and marks none of the offline answer unverified',
  async () => {
    await page.goto(service.url);
    const input = page.getByLabel('Ask a question about your data');
    await input.fill(WHY);
    await input.press('Enter');
    await poll(() => page.locator('.ac-turn .ac-answer[aria-busy="false"]').count()).toBe(1);

    const answer = page.locator('.ac-turn .ac-answer');
    const figures = answer.locator('button.ac-figure');
    expect(await figures.count()).toBeGreaterThanOrEqual(8);
    expect(await answer.locator('.ac-figure-unverified').count()).toBe(0);
    expect(await page.locator('.ac-unverified-count').count()).toBe(0);
    // Receipts sit beside the answer: its text is what the service wrote, figures included.
    expect(await answer.textContent()).toContain('fi_reporting: 443,100.00 EUR; bpc_reporting: 333,100.00 EUR');
    expect(await answer.textContent()).not.toContain('compare_sources');

    const figure = figures.filter({ hasText: /^443,100\.00$/ }).first();
    expect((await receiptOf(figure)).visible).toBe(false);

    // Hover shows it.
    await figure.hover();
    await poll(async () => (await receiptOf(figure)).visible).toBe(true);
    const { text } = await receiptOf(figure);
    expect(text).toContain('compare_sources');
    expect(text).toContain('fi_reporting vs bpc_reporting');
    expect(text).toContain('company 1000');
    expect(text).toContain('December 2024');
    expect(text).toContain('currency EUR');
    expect(text).toContain('total_a (fi_reporting) = 443,100');
    // The pointer can move onto the receipt to read it; it stays open there.
    const box = (await page.locator(`[id="${await figure.getAttribute('aria-describedby')}"]`).boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + box.height / 2, { steps: 4 });
    await page.waitForTimeout(400);
    expect((await receiptOf(figure)).visible).toBe(true);
    await page.mouse.move(0, 0);
    await poll(async () => (await receiptOf(figure)).visible).toBe(false);

    // The keyboard reaches it; the screen reader hears the receipt as its description; Escape closes it.
    await figure.focus();
    await poll(async () => (await receiptOf(figure)).visible).toBe(true);
    const description = await figure.evaluate((element: { ariaDescribedByElements?: Array<{ textContent: string }> }) => element.ariaDescribedByElements?.map((node) => node.textContent).join(' '));
    expect(description ?? (await receiptOf(figure)).text).toContain('compare_sources');
    expect(await figure.evaluate((element: { tagName: string; tabIndex: number }) => `${element.tagName}:${element.tabIndex}`)).toBe('BUTTON:0');
    await figure.press('Escape');
    expect((await receiptOf(figure)).visible).toBe(false);

    // A click pins it open until clicked again.
    await figure.click();
    expect(await figure.getAttribute('aria-expanded')).toBe('true');
    await page.mouse.move(0, 0);
    expect((await receiptOf(figure)).visible).toBe(true);
    await screenshot(page, 'receipt-open');
    await figure.click();
    expect(await figure.getAttribute('aria-expanded')).toBe('false');

    // A figure of the explanation reads the row of the dimension it came from.
    const driver = figures.filter({ hasText: /^2,036,800\.00$/ }).first();
    await driver.hover();
    await poll(async () => (await receiptOf(driver)).text).toContain('value G4000000');
    expect(errors).toEqual([]);
  },
  60_000,
);

it(
  'marks an invented figure plainly, keeps markdown, and never reads model text as HTML',
  async () => {
    // The same modules the chat uses, on a crafted answer: one figure a tool backs, one invented.
    const result = await page.evaluate(`(async () => {
      const { renderAnswer } = await import('/app/markdown.js');
      const { decorateFigures } = await import('/app/figures.js');
      const text = '- fi_reporting: **443,100.00** EUR\\n- invented: 120,000.00 EUR <img src=x onerror="window.__hacked=1">';
      const calls = [{ id: 'c1', name: 'compare_sources', args: { source_a: 'fi_reporting', source_b: 'bpc_reporting', filters: { company: '1000' } },
        result: { summary: { totals: [{ currency: 'EUR', total_a: 443100 }] } } }];
      const figures = [
        { text: '443,100.00', start: 16, end: 26, value: 443100, kind: 'amount', receipt: { kind: 'value', call: 'c1', path: 'summary.totals[0].total_a' } },
        { text: '120,000.00', start: 46, end: 56, value: 120000, kind: 'amount', receipt: { kind: 'unverified' } },
      ];
      const reply = document.createElement('div');
      reply.className = 'ac-reply';
      const answer = document.createElement('div');
      const holder = document.createElement('div');
      reply.append(answer, holder);
      document.querySelector('.ac-log').append(reply);
      answer.append(renderAnswer(text));
      const counts = decorateFigures(answer, holder, figures, calls, {});
      const bad = answer.querySelector('.ac-figure-unverified');
      const good = answer.querySelector('strong > .ac-figure:not(.ac-figure-unverified)');
      const describedBy = (button) => document.getElementById(button.getAttribute('aria-describedby')).textContent;
      const marker = getComputedStyle(bad, '::after').content;
      const seen = { counts, bad: bad && { text: bad.textContent, title: bad.title, receipt: describedBy(bad), marker },
        good: good && { text: good.textContent, receipt: describedBy(good) }, answerText: answer.textContent,
        images: answer.querySelectorAll('img').length, hacked: window.__hacked === 1 };
      reply.remove();
      return seen;
    })()`);
    expect(result).toMatchObject({
      counts: { verified: 1, unverified: 1 },
      bad: { text: '120,000.00', title: 'No tool result backs this figure' },
      good: { text: '443,100.00' },
      images: 0,
      hacked: false,
    });
    const { bad, good, answerText } = result as { bad: { receipt: string; marker: string }; good: { receipt: string }; answerText: string };
    expect(bad.receipt).toContain('No tool result backs this figure');
    expect(bad.marker).toContain('⚠');
    expect(good.receipt).toContain('compare_sources');
    expect(answerText).toContain('invented: 120,000.00 EUR <img src=x');
    expect(errors).toEqual([]);
  },
  30_000,
);

it(
  'brings the conversation back on reload with its answer, receipts or not',
  async () => {
    await page.reload();
    await poll(() => page.locator('.ac-turn .ac-answer').first().textContent()).toContain('fi_reporting: 443,100.00 EUR');
    expect(await page.locator('.ac-figure-unverified').count()).toBe(0);
    expect(errors).toEqual([]);
  },
  30_000,
);

it(
  'shows a repaired answer with the replaced one marked, and a figure the model repeats flagged unverified',
  async () => {
    mock = await startMockOpenAI();
    modelService = await startService({ MODEL_PROVIDER: 'openai', OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '1', ANSWER_CHECK: 'repair' });
    const total = { name: 'query_source', arguments: { source: 'fi_reporting', measures: ['amount'], filters: { company: '1000', period: '2024012' } }, id: 'call_total' };
    mock.enqueue({ toolCalls: [total] }, { content: 'FI shows 443,100.00 EUR; BPC shows 512,345.67 EUR.' }, { content: 'FI shows 443,100.00 EUR; BPC really shows 512,345.67 EUR.' });
    const { page: modelPage, errors: modelErrors } = await openPage(browser);
    await modelPage.goto(modelService.url);
    // While the answer still streams, the answer_replaced event already sets the first one aside.
    await modelPage.evaluate(`new MutationObserver(() => {
      if (document.querySelector('.ac-answer[aria-busy="true"]') && document.querySelector('.ac-replaced')) window.__replacedWhileStreaming = true;
    }).observe(document.body, { subtree: true, childList: true, attributes: true })`);
    const input = modelPage.getByLabel('Ask a question about your data');
    await input.fill('FI vs BPC for 1000 in December 2024?');
    await input.press('Enter');
    await expect.poll(() => modelPage.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(1);

    expect(await modelPage.evaluate('window.__replacedWhileStreaming === true')).toBe(true);
    const answer = modelPage.locator('.ac-turn .ac-answer');
    expect(await answer.textContent()).toBe('FI shows 443,100.00 EUR; BPC really shows 512,345.67 EUR.');
    // The first answer is set aside, marked, with the figure that caused it.
    const replaced = modelPage.locator('.ac-turn .ac-replaced');
    expect(await replaced.locator('summary').textContent()).toContain('512,345.67, which no tool result backs');
    expect(await replaced.locator('.ac-replaced-text').textContent()).toBe('FI shows 443,100.00 EUR; BPC shows 512,345.67 EUR.');

    // In the corrected answer the faithful figure has its receipt, the repeated one is flagged.
    const good = answer.locator('.ac-figure', { hasText: '443,100.00' });
    expect(await good.getAttribute('data-receipt')).toBe('value');
    const bad = answer.locator('.ac-figure-unverified');
    expect(await bad.count()).toBe(1);
    expect(await bad.textContent()).toBe('512,345.67');
    expect(await bad.getAttribute('title')).toBe('No tool result backs this figure');
    await bad.focus();
    const id = await bad.getAttribute('aria-describedby');
    await expect.poll(() => modelPage.locator(`[id="${id}"]`).isVisible()).toBe(true);
    expect(await modelPage.locator(`[id="${id}"]`).textContent()).toContain('No tool result backs this figure');
    expect(await modelPage.locator('.ac-turn .ac-unverified-count').textContent()).toBe('⚠ 1 unverified figure');
    await screenshot(modelPage, 'receipt-unverified');
    expect(mock.pending()).toBe(0);

    // A figure quoted from the earlier answer's result opens that earlier call's receipt.
    mock.enqueue({ content: 'As said, FI shows 443,100.00 EUR.' });
    await input.fill('say it again');
    await input.press('Enter');
    await expect.poll(() => modelPage.locator('.ac-turn .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(2);
    const quoted = modelPage.locator('.ac-turn').last().locator('.ac-answer .ac-figure', { hasText: '443,100.00' });
    await quoted.focus();
    const receipt = (await modelPage.locator(`[id="${await quoted.getAttribute('aria-describedby')}"]`).textContent()) ?? '';
    expect(receipt).toContain('query_source');
    expect(receipt).toContain('fi_reporting');
    expect(receipt).toContain('company 1000');
    expect(modelErrors).toEqual([]);
    await modelPage.close();
  },
  60_000,
);

it(
  'opens receipts the same way in the <analyst-chat> element, inside its shadow root',
  async () => {
    const { page: host, errors: hostErrors } = await openPage(browser);
    await host.goto(`${service.url}embed`);
    await host.evaluate(`(async () => {
      localStorage.clear(); // a chat of its own, not the page's conversation of the tests above
      await import('/embed.js');
      const element = document.createElement('analyst-chat');
      element.setAttribute('api-url', location.origin);
      element.style.height = '700px';
      document.body.replaceChildren(element);
      await customElements.whenDefined('analyst-chat');
      await new Promise((resolve) => setTimeout(resolve, 0));
      element.ask(${JSON.stringify(WHY)});
    })()`);
    // Playwright's CSS locators pierce the open shadow root.
    await expect.poll(() => host.locator('analyst-chat .ac-answer[aria-busy="false"]').count(), { timeout: 15_000 }).toBe(1);
    const figure = host.locator('analyst-chat .ac-answer button.ac-figure', { hasText: /^443,100\.00$/ }).first();
    await figure.focus();
    const description = await figure.evaluate((element: any) => element.getRootNode().getElementById(element.getAttribute('aria-describedby'))?.textContent ?? '');
    expect(description).toContain('compare_sources');
    expect(description).toContain('company 1000');
    expect(await host.locator('analyst-chat .ac-receipt:not([hidden])').count()).toBe(1);
    expect(await host.locator('analyst-chat .ac-figure-unverified').count()).toBe(0);
    expect(hostErrors).toEqual([]);
    await host.close();
  },
  30_000,
);
