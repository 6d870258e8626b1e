/**
 * One check on the close board: its name (the button that opens its history), status badge,
 * last run, differences per currency, open items, sign-offs, schedule and a Run now button, and
 * a line for what the last Run now said (or why it failed). Every field carries its label, shown
 * when the rows stack (a phone, a narrow iframe) and read by screen readers in the wide table.
 */
import { h, uniqueId } from '../dom.js';
import { differenceLines, formatDateTime, openItemsText, signoffText, statusLabel } from './board-text.js';

/**
 * A row for `check` (a list_checks entry), not yet placed.
 * @param {object} check a list_checks `checks` entry
 * @param {{locale: string, headingLevel: number, select: (row: object) => void,
 *   run: (check: object) => Promise<string>, errorText: (error: unknown) => string,
 *   announce: (text: string) => void}} context run: runs the check and refreshes the row;
 *   resolves with the run's interpretation
 * @returns {{element: HTMLLIElement, history: HTMLElement, check: object, update: (check: object) => void,
 *   setSelected: (selected: boolean) => void}}
 */
export function createCheckRow(check, context) {
  const historyId = uniqueId('board-history');
  const history = h('section', { class: 'board-history', id: historyId, hidden: true, 'aria-label': `History of ${check.check}` });
  const message = h('p', { class: 'board-message', hidden: true });
  const runButton = h('button', { type: 'button', class: 'board-button board-run', onClick: () => run() }, 'Run now');
  const selectButton = h('button', { type: 'button', class: 'board-select', 'aria-expanded': 'false', 'aria-controls': historyId, onClick: () => context.select(row) });
  const fields = h('div', { class: 'board-row' });
  const element = h('li', { class: 'board-check' }, fields, message, history);

  const row = {
    element,
    history,
    check,
    update(next) {
      row.check = next;
      render();
    },
    setSelected(selected) {
      selectButton.setAttribute('aria-expanded', String(selected));
      element.toggleAttribute('data-selected', selected);
      history.hidden = !selected;
    },
  };

  function render() {
    const current = row.check;
    const { locale } = context;
    const status = statusLabel(current.status);
    element.dataset.check = current.id;
    element.dataset.status = status.status;
    selectButton.replaceChildren(h('span', { class: 'board-name-text' }, current.check), h('span', { class: 'board-chevron', 'aria-hidden': 'true' }, '▸'));
    selectButton.setAttribute('aria-label', `${current.check}: show history`);
    const differences = differenceLines(current.differences ?? [], { locale });
    // The two buttons are kept across renders: focus on one stays there.
    const focused = fields.contains(document.activeElement) ? document.activeElement : null;
    fields.replaceChildren(
      h(
        'div',
        { class: 'board-field board-name' },
        h(`h${context.headingLevel}`, { class: 'board-heading' }, selectButton),
        h('span', { class: 'board-comparison' }, current.comparison),
        current.owner ? h('span', { class: 'board-owner' }, `Owner: ${current.owner}`) : null,
      ),
      field('Status', 'status', h('span', { class: `board-status board-status-${status.status}` }, h('span', { 'aria-hidden': 'true' }, `${status.symbol} `), status.words)),
      field('Last run', 'last-run', current.last_run_at ? h('time', { datetime: current.last_run_at }, formatDateTime(current.last_run_at, { locale })) : h('span', { class: 'board-muted' }, 'Not run yet')),
      field(
        'Difference',
        'difference',
        differences.length ? h('ul', { class: 'board-lines' }, differences.map((line) => h('li', { class: line.zero ? 'board-amount board-zero' : 'board-amount' }, line.text))) : h('span', { class: 'board-muted' }, 'No figures'),
      ),
      field('Open items', 'open', h('span', { class: current.open_items ? undefined : 'board-muted' }, openItemsText(current.open_items, current.oldest_open_days))),
      field(
        'Sign-off',
        'signoff',
        current.signoffs?.length
          ? h('ul', { class: 'board-lines' }, current.signoffs.map((signoff) => h('li', { class: `board-signoff board-signoff-${signoff.state === 'reopened' ? 'reopened' : 'signed'}`, title: signoff.note || undefined }, signoffText(signoff))))
          : h('span', { class: 'board-muted' }, 'Not signed off'),
      ),
      field(
        'Schedule',
        'schedule',
        h('span', {}, current.schedule ?? 'No schedule: runs when asked'),
        current.next_due_at ? h('span', { class: 'board-next' }, 'Next: ', h('time', { datetime: current.next_due_at }, formatDateTime(current.next_due_at, { locale }))) : null,
      ),
      h('div', { class: 'board-field board-actions' }, runButton),
    );
    if (focused?.isConnected && document.activeElement !== focused) focused.focus({ preventScroll: true });
  }

  async function run() {
    if (runButton.disabled) return;
    const name = row.check.check;
    // A disabled button drops focus: given back when the run is done, for keyboard users.
    const hadFocus = document.activeElement === runButton;
    runButton.disabled = true;
    runButton.textContent = 'Running…';
    element.setAttribute('aria-busy', 'true');
    showMessage('', 'info');
    context.announce(`Running ${name}…`);
    try {
      const interpretation = await context.run(row.check);
      showMessage(interpretation, 'info');
      context.announce(`${name} ran: ${statusLabel(row.check.status).words.toLowerCase()}.`);
    } catch (error) {
      showMessage(context.errorText(error), 'error');
    } finally {
      runButton.disabled = false;
      runButton.textContent = 'Run now';
      element.removeAttribute('aria-busy');
      if (hadFocus && (document.activeElement === document.body || document.activeElement === null)) runButton.focus({ preventScroll: true });
    }
  }

  function showMessage(text, kind) {
    message.hidden = !text;
    message.textContent = text;
    message.className = `board-message board-message-${kind}`;
    // An error is an alert; a run's outcome is announced through the board's status line.
    if (kind === 'error') message.setAttribute('role', 'alert');
    else message.removeAttribute('role');
  }

  render();
  return row;
}

/** A labelled field: the label shows when rows stack and is read aloud in the wide layout. */
function field(label, name, ...content) {
  return h('div', { class: `board-field board-field-${name}` }, h('span', { class: 'board-label' }, label), h('div', { class: 'board-value' }, content));
}
