/**
 * The chat's screen-reader status line: a polite live region that says what just happened
 * ("Answer complete.", "Stopped.", "Copied 12 rows as CSV."). Kept apart so every part of the
 * chat announces the same way, through one function.
 */
import { h } from './dom.js';

/**
 * The status element (to place in the chat) and the function that announces through it.
 * @returns {{element: HTMLDivElement, announce: (text: string) => void}}
 * @example
 * const status = createStatus();
 * root.append(status.element);
 * status.announce('Answer complete.');
 */
export function createStatus() {
  const element = h('div', { class: 'ac-sr', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
  function announce(text) {
    element.textContent = '';
    // A fresh text node so screen readers announce repeats too.
    setTimeout(() => {
      element.textContent = text;
    }, 50);
  }
  return { element, announce };
}
