/**
 * The chat UI, shared by the page (GET /, GET /embed) and the <analyst-chat> element (in its
 * shadow root). `mountChat(container, options)` lays out the chat inside `container` and wires
 * its parts, each in its own module:
 *
 * - conversation.js asks a question (POST /chat) and streams the answer into a turn (turn.js):
 *   text as it is written, tool calls (tools.js) as they start and finish, result views
 *   (views.js from results.js) as tables, charts (charts.js) and CSV (clipboard.js, csv.js).
 * - history.js keeps the session id in localStorage per API URL and, on load, brings the
 *   conversation back from GET /sessions/{id} (a 404 starts a fresh one).
 * - composer.js is the question box. Keyboard: Enter sends, Shift+Enter adds a line, Escape
 *   stops a running answer; focus stays in the question box.
 * - suggestions.js is the empty conversation with example questions; follow.js keeps a growing
 *   answer in view; status.js announces to screen readers; errors.js words what went wrong.
 */
import { createClient, normalizeApiUrl } from './api.js';
import { createComposer } from './composer.js';
import { createConversation } from './conversation.js';
import { h, uniqueId } from './dom.js';
import { createFollower } from './follow.js';
import { canonicalLocale } from './format.js';
import { createSessionStore, restoreConversation } from './history.js';
import { createStatus } from './status.js';
import { createEmptyState } from './suggestions.js';
import { createTurn } from './turn.js';

/** Example questions for an empty conversation when the options give none. */
export const DEFAULT_SUGGESTIONS = [
  'Which sources are available?',
  'Compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024',
  'Amount by period for company 1000 in Q4 2024',
];

/**
 * Mounts a chat in `container`.
 * @param {HTMLElement | ShadowRoot} container
 * @param {{apiUrl?: string, apiKey?: string, compact?: boolean, title?: string, locale?: string,
 *   headingLevel?: number, autofocus?: boolean, suggestions?: string[], storage?: Storage}} options
 * @example
 * const chat = mountChat(document.getElementById('analyst-chat'), { apiUrl: 'https://analyst.example.com/' });
 * await chat.ask('Which sources are available?');
 */
export function mountChat(container, options = {}) {
  const apiUrl = normalizeApiUrl(options.apiUrl, globalThis.location?.href ?? 'http://localhost/');
  const client = createClient({ apiUrl, apiKey: options.apiKey });
  // Set by the page or the embedding: the service words its answers in it too. Unset: en-US
  // here, and the service's default.
  const requestLocale = canonicalLocale(options.locale);
  const locale = requestLocale ?? 'en-US';
  const session = createSessionStore(options.storage, apiUrl);
  const level = Math.min(Math.max(options.headingLevel ?? 2, 1), 5);
  const suggestions = options.suggestions?.length ? options.suggestions : DEFAULT_SUGGESTIONS;
  /** Every chart drawn, so New chat and destroy() can free them. */
  const charts = new Set();
  let restoring = null;

  // ---------------------------------------------------------------------------------------------
  // Layout

  const status = createStatus();
  const announce = status.announce;
  const composer = createComposer({
    ask: (message) => conversation.ask(message),
    isRunning: () => conversation.running,
    stop: () => conversation.cancel(),
    announce,
  });
  const titleId = uniqueId('ac-title');
  const newButton = h('button', { type: 'button', class: 'ac-button ac-new', onClick: () => newChat() }, h('span', { 'aria-hidden': 'true' }, '+ '), 'New chat');
  const header = h(
    'header',
    { class: 'ac-header' },
    h(`h${level}`, { class: 'ac-title', id: titleId }, options.title || 'Data analyst'),
    newButton,
  );
  const log = h('div', { class: 'ac-log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-labelledby': titleId, tabindex: '0' });
  const root = h('div', { class: 'ac', data: { mode: options.compact ? 'compact' : 'full' }, onKeydown: composer.stopOnEscape }, header, log, status.element, composer.element);
  container.append(root);

  // ---------------------------------------------------------------------------------------------
  // Wiring

  /** What result views need from the chat: the locale, heading level, announcements, a host. */
  const viewContext = { locale, headingLevel: level, announce, host: root };
  /** Every finished turn's tool calls, newest first: a figure may quote an earlier turn's result. */
  const earlierCalls = [];
  const newTurn = (question) => createTurn(question, { locale, viewContext, charts, earlierCalls });
  const follower = createFollower(log);
  const empty = createEmptyState(log, {
    suggestions,
    pick: (text) => {
      composer.focus();
      if (!conversation.running) void conversation.ask(text);
    },
  });
  const conversation = createConversation({
    client,
    session,
    requestLocale,
    apiUrl,
    log,
    follower,
    newTurn,
    hideEmpty: empty.hide,
    setRunning: (on) => {
      root.toggleAttribute('data-running', on);
      composer.setRunning(on);
    },
    announce,
  });

  function destroyCharts() {
    for (const chart of charts) chart.destroy();
    charts.clear();
  }

  function newChat() {
    conversation.cancel();
    destroyCharts();
    restoring?.abort();
    earlierCalls.length = 0;
    log.replaceChildren();
    empty.hide();
    session.forget();
    empty.show();
    composer.clear();
    composer.focus();
    announce('New conversation.');
  }

  // ---------------------------------------------------------------------------------------------

  composer.autosize();
  restoring = restoreConversation({ client, session, apiUrl, log, newTurn, follower, showEmpty: empty.show, announce });
  if (options.autofocus) composer.focus({ preventScroll: true });

  return {
    /** Asks a question as if typed. */
    ask: (message) => conversation.ask(String(message)),
    newChat,
    cancel: () => conversation.cancel(),
    setApiKey: (key) => client.setApiKey(key),
    get sessionId() {
      return session.id;
    },
    get apiUrl() {
      return apiUrl;
    },
    focus: () => composer.focus(),
    destroy() {
      conversation.cancel();
      restoring?.abort();
      destroyCharts();
      root.remove();
    },
  };
}
