/**
 * One question and its answer in the conversation. The answer is updated as POST /chat streams
 * it (tokens, tool calls starting and finishing, their result views and charts), then replaced by
 * the final body, which is authoritative; a stored turn (GET /sessions/{id}) goes straight to the
 * final state. Tool calls are drawn by tools.js, result views by views.js from results.js, the
 * receipts of the answer's figures by figures.js.
 *
 * In proportion to the question: a view shown twice (the same table from two calls) is shown
 * once, and an answer that states one figure shows the figure, its tables and charts one click
 * away ("Show table and chart").
 */
import { drawChart } from './charts.js';
import { decorateFigures, replacedAnswer } from './figures.js';
import { h } from './dom.js';
import { formatDuration, formatNumber, humanize } from './format.js';
import { renderAnswer } from './markdown.js';
import { answerViews } from './results.js';
import { isOpen, renderTool } from './tools.js';
import { renderView } from './views.js';

/**
 * A turn's element and the functions that update it.
 * @param {string} question
 * @param {{locale: string, viewContext: object, charts: Set<{destroy: () => void}>, earlierCalls?: object[]}} context
 *   viewContext: what views.js needs (see renderView); charts: every chart of the chat, so New chat
 *   and unmounting can destroy them (the turn adds and removes its own); earlierCalls: the tool
 *   calls of the conversation's finished turns, newest first, for receipts quoting them (the
 *   turn adds its own when it finishes)
 * @returns {{element: HTMLElement, appendToken: (text: string) => void, toolStart: (data: object) => void,
 *   toolResult: (data: object) => void, answerReplaced: (data: object) => void,
 *   finish: (body: object, tookMs?: number) => void,
 *   stopped: () => void, fail: (error: {title: string, detail: string}) => void}}
 * @example
 * const turn = createTurn('Amount by period', { locale: 'en-US', viewContext, charts });
 * log.append(turn.element);
 * turn.appendToken('The total');
 * turn.finish(body, 1200);
 */
export function createTurn(question, { locale, viewContext, charts, earlierCalls = [] }) {
  const answer = h('div', { class: 'ac-answer', 'aria-busy': 'true' }, h('span', { class: 'ac-typing', 'aria-label': 'Working' }, h('span'), h('span'), h('span')));
  const toolList = h('ol', { class: 'ac-tools', 'aria-label': 'Tool calls' });
  const results = h('div', { class: 'ac-results' });
  const receipts = h('div', { class: 'ac-receipts' });
  /** Holds the first answer when a repair turn replaced it (figures.js). */
  const replaced = h('div', { class: 'ac-replaced-slot' });
  const meta = h('p', { class: 'ac-meta' });
  const element = h(
    'article',
    { class: 'ac-turn' },
    h('div', { class: 'ac-question' }, h('span', { class: 'ac-sr' }, 'You asked: '), h('p', {}, question)),
    h('div', { class: 'ac-reply' }, h('span', { class: 'ac-sr' }, 'Answer: '), toolList, replaced, answer, receipts, results, meta),
  );
  const tools = new Map();
  let streamed = '';
  let streamNode = null;
  const turnCharts = new Set();

  function clearCharts() {
    for (const chart of turnCharts) {
      chart.destroy();
      charts.delete(chart);
    }
    turnCharts.clear();
  }

  function draw(canvas, spec) {
    drawChart(canvas, spec, { locale })
      .then((chart) => {
        if (!chart) return;
        if (!canvas.isConnected) return chart.destroy();
        turnCharts.add(chart);
        charts.add(chart);
        canvas.closest('.ac-chart')?.setAttribute('data-ready', '');
      })
      .catch((error) => {
        canvas.closest('.ac-chart')?.replaceWith(h('p', { class: 'ac-note' }, `The chart could not be drawn (${error?.message ?? error}); the table has the figures.`));
      });
  }

  /** The views of `calls`, each table once; `folded`: behind a "Show table" toggle, charts drawn when it opens. */
  function showResults(calls, { folded = false } = {}) {
    clearCharts();
    const elements = [];
    const pending = [];
    for (const view of answerViews(calls, { locale, earlierCalls })) {
      const { element: viewElement, charts: drawn } = renderView(view, viewContext);
      elements.push(viewElement);
      pending.push(...drawn);
    }
    if (!folded || !elements.length) {
      results.replaceChildren(...elements);
      for (const { canvas, spec } of pending) draw(canvas, spec);
      return;
    }
    const tables = elements.length === 1 ? 'table' : `${elements.length} tables`;
    const chartsText = pending.length === 0 ? '' : pending.length === 1 ? ' and chart' : ` and ${pending.length} charts`;
    const more = h('details', { class: 'ac-more' }, h('summary', {}, `Show ${tables}${chartsText}`), ...elements);
    more.addEventListener('toggle', () => {
      if (more.open) for (const { canvas, spec } of pending.splice(0)) draw(canvas, spec);
    });
    results.replaceChildren(more);
  }

  const streamedCalls = () => [...tools.values()].map((entry) => entry.call).filter((call) => call.ok !== undefined);

  return {
    element,
    appendToken(text) {
      if (!text) return;
      if (!streamNode) {
        streamNode = h('p', { class: 'ac-streaming' });
        answer.replaceChildren(streamNode);
      }
      streamed += text;
      streamNode.textContent = streamed;
    },
    toolStart(data) {
      if (!data?.id || tools.has(data.id)) return;
      const call = { id: data.id, name: data.name, args: data.args };
      const entry = { call, element: renderTool(call, 'running', { locale, calls: earlierCalls }) };
      tools.set(data.id, entry);
      toolList.append(entry.element);
    },
    toolResult(data) {
      if (!data?.id) return;
      const previous = tools.get(data.id);
      const call = { ...(previous?.call ?? { id: data.id, name: data.name }), ok: data.ok, result: data.result, duration_ms: data.duration_ms, ...(data.presentation ? { presentation: data.presentation } : {}) };
      const element = renderTool(call, data.ok ? 'ok' : 'error', { open: isOpen(previous?.element), locale, calls: [...streamedCalls(), call, ...earlierCalls] });
      if (previous) previous.element.replaceWith(element);
      else toolList.append(element);
      tools.set(data.id, { call, element });
      showResults(streamedCalls());
    },
    /** The text streamed so far stated figures no tool result backs: it is set aside, marked, and the corrected answer streams next. */
    answerReplaced(data) {
      replaced.replaceChildren(replacedAnswer({ answer: data?.answer ?? streamed, unverified: data?.unverified }, { locale }));
      streamed = '';
      streamNode = null;
      answer.replaceChildren();
    },
    /** The final body (or a stored turn): authoritative answer, complete tool results. */
    finish(body, tookMs) {
      const calls = Array.isArray(body.tool_calls) ? body.tool_calls : [];
      const openIds = new Set([...tools.entries()].filter(([, entry]) => isOpen(entry.element)).map(([id]) => id));
      tools.clear();
      toolList.replaceChildren(
        ...calls.map((call) => {
          const element = renderTool(call, call.ok ? 'ok' : 'error', { open: openIds.has(call.id), locale, calls: [...calls, ...earlierCalls] });
          tools.set(call.id, { call, element });
          return element;
        }),
      );
      if (body.replaced) replaced.replaceChildren(replacedAnswer(body.replaced, { locale }));
      answer.replaceChildren(renderAnswer(body.answer ?? streamed));
      // This turn's calls first: a receipt names a call of this answer, or of an earlier one.
      const figures = decorateFigures(answer, receipts, body.answer === undefined ? [] : body.figures, [...calls, ...earlierCalls], { locale });
      answer.setAttribute('aria-busy', 'false');
      // A one-figure answer is the figure: its tables are one click away.
      showResults(calls, { folded: figures.verified + figures.unverified === 1 });
      earlierCalls.unshift(...calls);
      const parts = [];
      if (typeof body.iterations === 'number') parts.push(`${body.iterations} model ${body.iterations === 1 ? 'call' : 'calls'}`);
      parts.push(`${calls.length} tool ${calls.length === 1 ? 'call' : 'calls'}`);
      if (typeof body.usage?.total_tokens === 'number') parts.push(`${formatNumber(body.usage.total_tokens, { locale })} tokens`);
      if (typeof tookMs === 'number') parts.push(formatDuration(tookMs, { locale }));
      if (figures.verified > 0) parts.push(`${figures.verified} verified ${figures.verified === 1 ? 'figure' : 'figures'}`);
      meta.replaceChildren(parts.join(' · '));
      if (figures.unverified > 0) {
        meta.prepend(h('span', { class: 'ac-badge ac-badge-warn ac-unverified-count' }, `⚠ ${figures.unverified} unverified ${figures.unverified === 1 ? 'figure' : 'figures'}`), ' ');
      }
      if (body.finished === false) {
        meta.prepend(h('span', { class: 'ac-badge ac-badge-warn' }, body.stop_reason === 'max_iterations' ? 'Incomplete: step limit reached' : body.stop_reason === 'client_stopped' ? 'Stopped before the answer' : `Incomplete: ${humanize(body.stop_reason ?? 'stopped')}`), ' ');
      }
    },
    stopped() {
      answer.setAttribute('aria-busy', 'false');
      if (!streamed) answer.replaceChildren();
      for (const entry of tools.values()) if (entry.call.ok === undefined) entry.element.querySelector('details')?.setAttribute('data-status', 'stopped');
      meta.replaceChildren(h('span', { class: 'ac-badge' }, 'Stopped'), ' You stopped this answer.');
    },
    /** The request failed: the error (from describeError in errors.js) in place of the answer. */
    fail({ title, detail }) {
      answer.setAttribute('aria-busy', 'false');
      if (!streamed) answer.replaceChildren();
      meta.replaceChildren(h('div', { class: 'ac-error', role: 'alert' }, h('strong', {}, title), detail ? h('span', {}, ` ${detail}`) : null));
    },
  };
}
