/**
 * A result view as elements: its title, its chart canvases (one per unit, drawn by the caller
 * with charts.js), the table, notes, and Copy CSV / Download CSV. Cells read as columns.js writes
 * them, so table and CSV agree. A table wider than the chat keeps its key column (the first) and
 * its Difference column in sight (sticky, chat.css) and says that it scrolls sideways.
 */
import { copyText, download } from './clipboard.js';
import { cellText, cellValue, csvColumns } from './columns.js';
import { csvFileName, toCsv } from './csv.js';
import { h, uniqueId } from './dom.js';
import { columnDigits } from './format.js';

const isNumeric = (column) => column.kind === 'number' || column.kind === 'percent';

/**
 * The elements of one view (from results.js).
 * @param {{title: string, subtitle?: string, columns: object[], rows: object[], chart?: object,
 *   notes: string[], csvName?: unknown[], tool?: string}} view
 * @param {{locale: string, headingLevel: number, announce: (text: string) => void, host: HTMLElement}} context
 *   host: an element of the chat that may briefly hold an off-screen helper (copy, download)
 * @returns {{element: HTMLElement, charts: Array<{canvas: HTMLCanvasElement, spec: object}>}}
 */
export function renderView(view, { locale, headingLevel, announce, host }) {
  const titleId = uniqueId('ac-view');
  const csv = () => toCsv(csvColumns(view.columns, { locale }), view.rows);
  const fileName = csvFileName(...(view.csvName ?? [view.tool]));
  const copyButton = h('button', { type: 'button', class: 'ac-button ac-small', 'aria-describedby': titleId }, 'Copy CSV');
  copyButton.addEventListener('click', async () => {
    const ok = await copyText(csv(), host);
    copyButton.textContent = ok ? 'Copied' : 'Copy failed';
    announce(ok ? `Copied ${view.rows.length} rows as CSV.` : 'The browser did not allow copying; use Download CSV.');
    setTimeout(() => {
      copyButton.textContent = 'Copy CSV';
    }, 2000);
  });
  const downloadButton = h('button', {
    type: 'button',
    class: 'ac-button ac-small',
    'aria-describedby': titleId,
    onClick: () => {
      download(fileName, csv(), host);
      announce(`Downloading ${fileName}.`);
    },
  }, 'Download CSV');
  const charts = (view.charts ?? []).map((spec) => {
    const canvas = h('canvas', { role: 'img', 'aria-label': `${spec.type === 'line' ? 'Line' : 'Bar'} chart: ${spec.label}. The table below has the figures.` });
    const box = h('div', { class: 'ac-chart', data: { kind: spec.horizontal ? 'horizontal' : 'vertical', bars: String(spec.labels.length), ...(spec.unit ? { unit: spec.unit } : {}) } }, canvas);
    if (spec.horizontal) box.style.height = `${Math.min(Math.max(spec.labels.length * 28 + 48, 120), 420)}px`;
    return { canvas, spec, box };
  });
  const cue = h('p', { class: 'ac-scroll-cue', hidden: true, 'aria-hidden': 'true' }, 'Scroll sideways for more columns →');
  const wrap = h('div', { class: 'ac-table-wrap', tabindex: '0', role: 'region', 'aria-label': `${view.title} (table)` }, renderTable(view, locale));
  watchOverflow(wrap, cue);
  const element = h(
    'section',
    { class: 'ac-view', 'aria-labelledby': titleId, data: { tool: view.tool } },
    h(
      'div',
      { class: 'ac-view-head' },
      h(`h${Math.min(headingLevel + 1, 6)}`, { class: 'ac-view-title', id: titleId }, view.title, view.subtitle ? h('span', { class: 'ac-view-sub' }, ` · ${view.subtitle}`) : null),
      h('div', { class: 'ac-view-actions' }, copyButton, downloadButton),
    ),
    charts.length ? h('div', { class: 'ac-charts' }, charts.map((chart) => chart.box)) : null,
    cue,
    wrap,
    view.notes.length ? h('ul', { class: 'ac-notes' }, view.notes.map((note) => h('li', {}, note))) : null,
  );
  return { element, charts: charts.map(({ canvas, spec }) => ({ canvas, spec })) };
}

/** Shows `cue` while `wrap` is narrower than its table (a phone, a narrow embed), whenever either changes size. */
export function watchOverflow(wrap, cue) {
  const check = () => {
    const scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
    cue.hidden = !scrolls;
    wrap.toggleAttribute('data-scrolls', scrolls);
  };
  if (typeof ResizeObserver === 'function') new ResizeObserver(check).observe(wrap);
}

/** Long headers (`consolidation_mart ACTUAL`) may wrap between words; short ones ("Difference %") stay whole. */
const headerClass = (column) => [isNumeric(column) ? 'ac-num' : '', String(column.label).length > 16 && /\s/.test(column.label) ? 'ac-wrap' : ''].filter(Boolean).join(' ') || undefined;

function renderTable(view, locale) {
  // The key (first) column and the first Difference column stay in sight when the table scrolls.
  const difference = view.columns.findIndex((column) => column.difference);
  const placeClass = (index) => (index === 0 && view.columns.length > 2 ? 'ac-key' : index === difference && index > 0 ? 'ac-diff' : '');
  const digits = new Map(view.columns.filter((c) => c.kind === 'number').map((c) => [c.key, columnDigits(view.rows.map((row) => row[c.key]))]));
  const cell = (column, row) => {
    const value = row[column.key];
    if (column.kind === 'status' && value) return h('span', { class: `ac-status ac-status-${String(value).replace(/[^a-z_]/g, '')}` }, column.valueLabels?.[value] ?? String(value));
    if (value === null || value === undefined || value === '') return isNumeric(column) ? '' : h('span', { class: 'ac-blank' }, '(blank)');
    return cellText(column, row, { locale, digits: digits.get(column.key) });
  };
  return h(
    'table',
    { class: 'ac-table' },
    h('caption', { class: 'ac-sr' }, view.title),
    h('thead', {}, h('tr', {}, view.columns.map((column, index) => h('th', { scope: 'col', class: [headerClass(column), placeClass(index)].filter(Boolean).join(' ') || undefined }, column.label)))),
    h(
      'tbody',
      {},
      view.rows.map((row) =>
        h(
          'tr',
          {},
          view.columns.map((column, index) => {
            const value = cellValue(column, row);
            const negative = isNumeric(column) && typeof value === 'number' && value < 0;
            const classes = [isNumeric(column) ? 'ac-num' : '', negative ? 'ac-neg' : '', column.kind === 'period' ? 'ac-period' : '', placeClass(index)];
            return h('td', { class: classes.filter(Boolean).join(' ') || undefined }, cell(column, row));
          }),
        ),
      ),
    ),
  );
}
