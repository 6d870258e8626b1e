/**
 * One tool call as an expandable list item: name, a one-line description, status and duration;
 * opened, its arguments, its error (when it failed) and its raw result.
 */
import { h } from './dom.js';
import { formatDuration, formatNumber } from './format.js';
import { describeCall } from './results.js';

/** Raw results longer than this are cut in the expandable view (CSV and tables have every row). */
const MAX_RAW_CHARS = 20_000;

const STATUS_TEXT = { running: 'running', ok: 'succeeded', error: 'failed' };

/** Whether a tool call's item is open. */
export const isOpen = (item) => Boolean(item?.querySelector('details')?.open);

/**
 * The list item of a call.
 * @param {{id?: string, name?: string, args?: unknown, ok?: boolean, result?: unknown, duration_ms?: number, presentation?: object}} call (its one-line description is the presentation's caption)
 * @param {'running' | 'ok' | 'error'} state
 * @param {{open?: boolean, locale: string, calls?: object[]}} options open: keep it open (it was open before an update);
 *   calls: the conversation's calls, naming the sides of a call about a comparison by its id
 * @returns {HTMLLIElement}
 */
export function renderTool(call, state, { open = false, locale, calls = [] }) {
  const failed = state === 'error';
  const error = failed && call.result && typeof call.result === 'object' ? (call.result.error ?? call.result) : null;
  const description = describeCall(call, { locale, calls });
  const body = h(
    'div',
    { class: 'ac-tool-body' },
    h('p', { class: 'ac-tool-label' }, 'Arguments'),
    h('pre', { class: 'ac-code' }, JSON.stringify(call.args ?? {}, null, 2)),
    failed && error
      ? h('p', { class: 'ac-tool-error' }, h('strong', {}, `${error.code ?? 'error'}: `), String(error.message ?? ''), error.hint ? h('span', { class: 'ac-tool-hint' }, ` ${error.hint}`) : null)
      : null,
    call.result !== undefined ? [h('p', { class: 'ac-tool-label' }, 'Result'), h('pre', { class: 'ac-code' }, rawJson(call.result, locale))] : h('p', { class: 'ac-tool-label' }, 'Running…'),
  );
  return h(
    'li',
    { class: 'ac-tool-item' },
    h(
      'details',
      { class: 'ac-tool', data: { status: state, tool: call.name }, open: open || undefined },
      h(
        'summary',
        {},
        h('span', { class: 'ac-tool-icon', 'aria-hidden': 'true' }),
        h('code', { class: 'ac-tool-name' }, call.name),
        description ? h('span', { class: 'ac-tool-desc' }, description) : null,
        h('span', { class: 'ac-tool-time' }, typeof call.duration_ms === 'number' ? formatDuration(call.duration_ms, { locale }) : ''),
        h('span', { class: 'ac-sr' }, `, ${STATUS_TEXT[state] ?? state}`),
      ),
      body,
    ),
  );
}

function rawJson(value, locale) {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.length > MAX_RAW_CHARS ? `${text.slice(0, MAX_RAW_CHARS)}\n… (${formatNumber(text.length - MAX_RAW_CHARS, { locale })} more characters; download the table as CSV for every row)` : text;
}
