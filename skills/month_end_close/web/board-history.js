/**
 * A check's history on the close board (from check_history): what it says in a sentence, the
 * difference over the runs as small line charts (one per currency: amounts in different
 * currencies never share an axis), the runs, the differences still open with their age, and
 * the sign-offs. Charts are drawn with charts.js (Chart.js from /vendor), as in the chat.
 */
import { drawChart } from '../charts.js';
import { append, h } from '../dom.js';
import { differenceLines, formatDateTime, signoffText, statusLabel, trendCharts, triggerText } from './board-text.js';
import { watchOverflow } from '../views.js';

/**
 * Fills `container` with `history` and draws its charts.
 * @param {HTMLElement} container the row's history section
 * @param {object} history a check_history result
 * @param {{locale: string, headingLevel: number, charts: Set<object>}} options charts: every chart
 *   drawn, so the board can destroy them when the history closes or is replaced
 */
export function renderHistory(container, history, { locale, headingLevel, charts }) {
  const heading = (text) => h(`h${Math.min(headingLevel + 1, 6)}`, { class: 'board-subheading' }, text);
  const specs = trendCharts(history.trend ?? [], { locale });
  const boxes = specs.map((spec) => {
    const canvas = h('canvas', { role: 'img', 'aria-label': `Line chart: ${spec.label}. The runs table has the figures.` });
    const box = h('figure', { class: 'board-chart', data: { currency: spec.currency } }, h('figcaption', { class: 'board-chart-title' }, spec.currency ? `Difference (${spec.currency})` : 'Difference'), h('div', { class: 'board-canvas' }, canvas));
    return { canvas, spec, box };
  });

  const cue = h('p', { class: 'board-scroll-cue', hidden: true, 'aria-hidden': 'true' }, 'Scroll sideways for more columns →');
  const runsTable = h('div', { class: 'board-table-wrap', tabindex: '0', role: 'region', 'aria-label': `Runs of ${history.check}` }, runsTableOf(history.runs ?? [], locale));

  // append() flattens the lists and drops the absent parts (replaceChildren would not).
  container.replaceChildren();
  append(container, [
    h('p', { class: 'board-interpretation' }, history.interpretation),
    heading('Difference over runs'),
    boxes.length ? h('div', { class: 'board-charts' }, boxes.map((item) => item.box)) : h('p', { class: 'board-muted' }, 'No figures yet: the check has no finished run with totals.'),
    heading(`Runs (${history.runs?.length ?? 0})`),
    history.runs?.length ? [cue, runsTable] : h('p', { class: 'board-muted' }, 'No runs yet.'),
    heading('Open items'),
    openItemsOf(history),
    history.signoffs?.length ? [heading('Sign-offs'), h('ul', { class: 'board-list' }, history.signoffs.map((signoff) => signoffItem(signoff, locale)))] : null,
  ]);
  if (history.runs?.length) watchOverflow(runsTable, cue);

  for (const { canvas, spec, box } of boxes) {
    drawChart(canvas, spec, { locale })
      .then((chart) => {
        if (!chart) return;
        if (!canvas.isConnected) return chart.destroy();
        charts.add(chart);
        box.setAttribute('data-ready', '');
      })
      .catch((error) => {
        box.replaceWith(h('p', { class: 'board-muted' }, `The chart could not be drawn (${error?.message ?? error}); the runs table has the figures.`));
      });
  }
}

function runsTableOf(runs, locale) {
  // Runs of the same minute (a run by hand after a scheduled one) are told apart by their seconds.
  const seconds = new Set(runs.map((run) => formatDateTime(run.at, { locale }))).size < runs.length;
  return h(
    'table',
    { class: 'board-table' },
    h('thead', {}, h('tr', {}, ['Date', 'Status', 'Trigger', 'By', 'Difference'].map((label) => h('th', { scope: 'col' }, label)))),
    h(
      'tbody',
      {},
      runs.map((run) => {
        const status = statusLabel(run.status);
        const totals = (run.periods ?? []).flatMap((period) => period.totals.map((total) => ({ period: period.period, currency: total.currency, difference: total.difference })));
        return h(
          'tr',
          { data: { run: run.run } },
          h('td', {}, h('time', { datetime: run.at }, formatDateTime(run.at, { locale, seconds }))),
          h('td', {}, h('span', { class: `board-status board-status-${status.status}` }, h('span', { 'aria-hidden': 'true' }, `${status.symbol} `), status.words)),
          h('td', {}, triggerText(run.trigger)),
          h('td', {}, run.by),
          h('td', { class: 'board-number' }, differenceLines(totals, { locale }).map((line) => h('div', {}, line.text))),
        );
      }),
    ),
  );
}

function openItemsOf(history) {
  const closed = history.closed_items ? h('p', { class: 'board-muted' }, `${history.closed_items} ${history.closed_items === 1 ? 'difference' : 'differences'} closed since the check was saved.`) : null;
  if (!history.open_items?.length) return [h('p', { class: 'board-muted' }, 'No open differences.'), closed];
  return [
    h(
      'ul',
      { class: 'board-list board-open-items' },
      history.open_items.map((item) => h('li', { class: 'board-open-item', data: { age: String(item.age_days) } }, h('span', { class: 'board-period' }, item.period), ' ', item.statement)),
    ),
    closed,
  ];
}

function signoffItem(signoff, locale) {
  return h(
    'li',
    { class: `board-signoff board-signoff-${signoff.state === 'reopened' ? 'reopened' : 'signed'}` },
    signoffText(signoff),
    ' on ',
    h('time', { datetime: signoff.at }, formatDateTime(signoff.at, { locale })),
    signoff.note ? h('q', { class: 'board-note' }, signoff.note) : null,
  );
}
