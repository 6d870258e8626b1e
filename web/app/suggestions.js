/**
 * The empty conversation: a line on what to ask and example questions to click. Shown when the
 * conversation has no question yet (first visit, New chat, nothing to restore), gone with the first.
 */
import { h } from './dom.js';

/**
 * The empty state of `log`, shown and hidden on demand.
 * @param {HTMLElement} log the conversation pane
 * @param {{suggestions: string[], pick: (question: string) => void}} options pick: an example was clicked
 * @returns {{show: () => void, hide: () => void}} show does nothing when it is there or a question is
 * @example
 * const empty = createEmptyState(log, { suggestions: ['Which sources are available?'], pick: ask });
 * empty.show();
 */
export function createEmptyState(log, { suggestions, pick }) {
  let element = null;
  function show() {
    if (element || log.querySelector('.ac-turn')) return;
    element = h(
      'div',
      { class: 'ac-empty' },
      h('p', { class: 'ac-empty-lead' }, 'Ask about your finance data: totals and breakdowns, or why two sources differ.'),
      h(
        'ul',
        { class: 'ac-suggestions', 'aria-label': 'Example questions' },
        suggestions.map((text) => h('li', {}, h('button', { type: 'button', class: 'ac-suggestion', onClick: () => pick(text) }, text))),
      ),
    );
    log.append(element);
  }
  function hide() {
    element?.remove();
    element = null;
  }
  return { show, hide };
}
