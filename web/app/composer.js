/**
 * The question box at the bottom of the chat: a growing textarea, Send (which turns into Stop
 * while an answer runs) and the keyboard hint. Keyboard: Enter sends, Shift+Enter adds a line,
 * Escape anywhere in the chat stops a running answer; focus stays in the question box.
 */
import { h, uniqueId } from './dom.js';

/** The question box grows with its text up to this height (px), then scrolls. */
const MAX_HEIGHT = 200;

/**
 * The composer's form and its controls.
 * @param {{ask: (message: string) => unknown, isRunning: () => boolean, stop: () => void,
 *   announce: (text: string) => void}} actions ask: send a question; stop: stop the running answer
 * @returns {{element: HTMLFormElement, focus: (options?: FocusOptions) => void, clear: () => void,
 *   autosize: () => void, setRunning: (on: boolean) => void, stopOnEscape: (event: KeyboardEvent) => void}}
 *   clear: empty the box; autosize: fit the box to its text (once it is in the page);
 *   setRunning: Send or Stop; stopOnEscape: the chat's keydown listener
 * @example
 * const composer = createComposer({ ask, isRunning: () => running, stop: cancel, announce });
 * root.append(composer.element);
 * root.addEventListener('keydown', composer.stopOnEscape);
 */
export function createComposer({ ask, isRunning, stop, announce }) {
  const inputId = uniqueId('ac-input');
  const hintId = uniqueId('ac-hint');
  const input = h('textarea', {
    id: inputId,
    class: 'ac-input',
    rows: '1',
    placeholder: 'Ask about your data…',
    'aria-describedby': hintId,
    enterkeyhint: 'send',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const sendButton = h('button', { type: 'submit', class: 'ac-button ac-send' }, 'Send');
  const element = h(
    'form',
    { class: 'ac-composer', onSubmit: onSubmit },
    h('label', { for: inputId, class: 'ac-sr' }, 'Ask a question about your data'),
    h('div', { class: 'ac-input-row' }, input, sendButton),
    h('p', { id: hintId, class: 'ac-hint' }, h('kbd', {}, 'Enter'), ' to send · ', h('kbd', {}, 'Shift+Enter'), ' new line · ', h('kbd', {}, 'Esc'), ' stop'),
  );

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      send();
    }
  });
  input.addEventListener('input', autosize);
  sendButton.addEventListener('click', (event) => {
    if (!isRunning()) return; // a submit: onSubmit sends
    event.preventDefault();
    stop();
    input.focus();
  });

  function onSubmit(event) {
    event.preventDefault();
    send();
    input.focus(); // also after clicking Send: the next question is typed right away
  }

  function autosize() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, MAX_HEIGHT)}px`;
  }

  function send() {
    const message = input.value.trim();
    if (!message) return;
    if (isRunning()) {
      announce('An answer is still running: wait for it, or press Escape to stop it.');
      return;
    }
    clear();
    void ask(message);
  }

  function clear() {
    input.value = '';
    autosize();
  }

  return {
    element,
    focus: (options) => input.focus(options),
    clear,
    autosize,
    setRunning(on) {
      sendButton.textContent = on ? 'Stop' : 'Send';
      sendButton.classList.toggle('ac-stop', on);
      if (on) sendButton.setAttribute('aria-label', 'Stop the answer (Escape)');
      else sendButton.removeAttribute('aria-label');
    },
    stopOnEscape(event) {
      if (event.key === 'Escape' && isRunning()) {
        event.preventDefault();
        stop();
      }
    },
  };
}
