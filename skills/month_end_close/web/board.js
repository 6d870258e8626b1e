/**
 * The close board (GET /app/checks): every saved reconciliation check of the month_end_close
 * skill with its status, last run, differences, open items, sign-off and schedule, a Run now
 * button per check, and the history of the selected one. It only calls the close tools over
 * HTTP (list_checks, check_history, run_check), so it shows what the chat and dashboards see.
 *
 * The page is the service's own, like /embed, and may be framed by dashboards. Its options are
 * in the URL fragment, which never reaches a server or its logs:
 * /app/checks#api-key=…&locale=de-DE&heading=Close%20December&only-breaks
 * Parts: board-api.js (calls and error words), board-row.js (a check), board-history.js (its
 * history and charts), board-text.js (the words, pure), board.css.
 */
import { createBoardApi } from './board-api.js';
import { renderHistory } from './board-history.js';
import { createCheckRow } from './board-row.js';
import { countsText } from './board-text.js';
import { append, h, uniqueId } from '../dom.js';
import { canonicalLocale } from '../format.js';
import { createStatus } from '../status.js';

/**
 * Mounts the board in `container` and loads the checks.
 * @param {HTMLElement} container
 * @param {{apiUrl: string, apiKey?: string, locale?: string, title?: string, onlyBreaks?: boolean}} options
 * @returns {{reload: () => Promise<void>, ready: Promise<void>, destroy: () => void}}
 * @example
 * mountBoard(document.getElementById('close-board'), { apiUrl: new URL('../', location.href).href });
 */
export function mountBoard(container, options) {
  const api = createBoardApi({ apiUrl: options.apiUrl, apiKey: options.apiKey });
  const locale = canonicalLocale(options.locale) ?? 'en-US';
  const status = createStatus();
  /** The rows by check id, in the order list_checks gave them. */
  const rows = new Map();
  /** Charts of the open history, destroyed when it closes or is redrawn. */
  const charts = new Set();
  let selected = null;
  let historyRequest = null;
  let counts = { counts: {}, total: 0 };

  const titleId = uniqueId('board-title');
  const summary = h('p', { class: 'board-summary' });
  const filter = h('input', { type: 'checkbox', class: 'board-filter-input', onChange: () => applyFilter(true) });
  filter.checked = Boolean(options.onlyBreaks);
  const filterLabel = h('label', { class: 'board-filter' }, filter, ' Only breaks');
  const refreshButton = h('button', { type: 'button', class: 'board-button board-refresh', onClick: () => load() }, 'Refresh');
  const notice = h('div', { class: 'board-notice', hidden: true });
  const columns = h(
    'div',
    { class: 'board-columns', 'aria-hidden': 'true' },
    ['Check', 'Status', 'Last run', 'Difference', 'Open items', 'Sign-off', 'Schedule', ''].map((label) => h('span', {}, label)),
  );
  const list = h('ol', { class: 'board-checks', 'aria-labelledby': titleId });
  const root = h(
    'div',
    { class: 'board' },
    h(
      'header',
      { class: 'board-header' },
      h('div', {}, h('h1', { class: 'board-title', id: titleId }, options.title || 'Close board'), summary),
      h('div', { class: 'board-toolbar' }, filterLabel, refreshButton),
    ),
    notice,
    columns,
    list,
    status.element,
  );
  container.append(root);

  const rowContext = {
    locale,
    headingLevel: 2,
    select: (row) => select(row),
    run: (check) => run(check),
    errorText: api.errorText,
    announce: status.announce,
  };

  async function load() {
    root.setAttribute('aria-busy', 'true');
    refreshButton.disabled = true;
    if (rows.size === 0) showNotice('Loading checks…');
    try {
      const result = await api.listChecks();
      show(result);
      if (selected) void loadHistory(selected);
    } catch (error) {
      showNotice(api.errorText(error), 'error', h('button', { type: 'button', class: 'board-button', onClick: () => load() }, 'Try again'));
    } finally {
      root.removeAttribute('aria-busy');
      refreshButton.disabled = false;
    }
  }

  /** Shows a list_checks result, keeping the rows (and the open history) of checks still there. */
  function show(result) {
    counts = { counts: result.counts ?? {}, total: result.checks.length };
    const seen = new Set();
    for (const check of result.checks) {
      seen.add(check.id);
      const existing = rows.get(check.id);
      if (existing) existing.update(check);
      else rows.set(check.id, createCheckRow(check, rowContext));
      list.append(rows.get(check.id).element); // moves it into list_checks' order
    }
    for (const [id, row] of rows) {
      if (seen.has(id)) continue;
      if (selected === row) closeHistory();
      row.element.remove();
      rows.delete(id);
    }
    applyFilter(false);
  }

  function applyFilter(announce) {
    const onlyBreaks = filter.checked;
    let shown = 0;
    for (const row of rows.values()) {
      const visible = !onlyBreaks || row.check.status === 'break';
      row.element.hidden = !visible;
      if (visible) shown += 1;
    }
    summary.textContent = `${countsText(counts.counts, counts.total)}${onlyBreaks && counts.total ? ` · showing ${shown} ${shown === 1 ? 'break' : 'breaks'}` : ''}`;
    root.toggleAttribute('data-empty', rows.size === 0);
    filterLabel.hidden = rows.size === 0;
    if (rows.size === 0) {
      showNotice(['No checks yet: save one with ', h('code', {}, 'save_check'), " or ask the chat 'save a monthly check of …'"], 'empty');
    } else if (shown === 0) showNotice('No check breaks.', 'empty');
    else showNotice('');
    if (announce) status.announce(onlyBreaks ? `Showing ${shown} of ${rows.size} checks: the breaks.` : `Showing all ${rows.size} checks.`);
  }

  /** The line under the header: loading, a failure (with Try again), or why no row shows. */
  function showNotice(parts, kind = 'info', action = null) {
    const content = [parts].flat().filter(Boolean);
    notice.hidden = content.length === 0;
    notice.className = `board-notice board-notice-${kind}`;
    notice.replaceChildren();
    if (content.length) append(notice, [h('p', { role: kind === 'error' ? 'alert' : undefined }, content), action]);
  }

  function select(row) {
    if (selected === row) {
      closeHistory();
      return;
    }
    closeHistory();
    selected = row;
    row.setSelected(true);
    void loadHistory(row);
  }

  function closeHistory() {
    historyRequest?.abort();
    destroyCharts();
    if (selected) {
      selected.setSelected(false);
      selected.history.replaceChildren();
    }
    selected = null;
  }

  /** Loads and shows the history of `row`; a newer request (another check, a refresh) wins. */
  async function loadHistory(row) {
    historyRequest?.abort();
    const request = new AbortController();
    historyRequest = request;
    row.history.setAttribute('aria-busy', 'true');
    if (!row.history.hasChildNodes()) row.history.append(h('p', { class: 'board-muted' }, 'Loading history…'));
    try {
      const history = await api.history(row.check.check, { signal: request.signal });
      if (request.signal.aborted || selected !== row) return;
      destroyCharts();
      renderHistory(row.history, history, { locale, headingLevel: 2, charts });
      row.history.dataset.runs = String(history.runs?.length ?? 0);
    } catch (error) {
      if (request.signal.aborted) return;
      row.history.replaceChildren(h('p', { class: 'board-message board-message-error', role: 'alert' }, api.errorText(error)));
    } finally {
      if (historyRequest === request) row.history.removeAttribute('aria-busy');
    }
  }

  /** Runs a check now, then refreshes its row (and its history when open); resolves with what the run says. */
  async function run(check) {
    const result = await api.runCheck(check.check);
    const fresh = await api.listChecks();
    const entry = fresh.checks.find((candidate) => candidate.id === check.id);
    const row = rows.get(check.id);
    counts = { counts: fresh.counts ?? {}, total: fresh.checks.length };
    if (entry && row) row.update(entry);
    applyFilter(false);
    if (row && selected === row) await loadHistory(row);
    return result.interpretation;
  }

  function destroyCharts() {
    for (const chart of charts) chart.destroy();
    charts.clear();
  }

  const loading = load();
  return {
    /** Loads the checks again (the Refresh button). */
    reload: () => load(),
    /** Resolves when the first load is done (for the tests and the console). */
    ready: loading,
    destroy() {
      closeHistory();
      root.remove();
    },
  };
}

// The page itself (web/checks.html): the API is the service that served it.
const page = typeof document === 'undefined' ? null : document.getElementById('close-board');
if (page) {
  const params = new URLSearchParams(location.hash.slice(1));
  window.closeBoard = mountBoard(page, {
    apiUrl: new URL('../', location.href).href,
    apiKey: params.get('api-key') ?? undefined,
    locale: params.get('locale') ?? undefined,
    title: params.get('heading') ?? undefined,
    onlyBreaks: params.has('only-breaks'),
  });
}
