/**
 * The chat UI, shared by the page (GET /, GET /embed) and the <analyst-chat> element (in its
 * shadow root). `mountChat(container, options)` builds everything inside `container`; tool calls
 * are drawn by tools.js, result views (tables, charts, CSV) by views.js from results.js.
 *
 * - Answers stream in as they are written; tool calls appear as they start and finish,
 *   expandable to their arguments, result and duration; results become tables, charts and CSV.
 * - The session id is kept in localStorage per API URL; on load the conversation comes back
 *   from GET /sessions/{id} (a 404 starts a fresh one).
 * - Keyboard: Enter sends, Shift+Enter adds a line, Escape stops a running answer; focus stays
 *   in the question box.
 */
import { ApiError, createClient, normalizeApiUrl } from './api.js';
import { drawChart } from './charts.js';
import { h, uniqueId } from './dom.js';
import { canonicalLocale, formatDuration, formatNumber, humanize } from './format.js';
import { renderAnswer } from './markdown.js';
import { viewsFor } from './results.js';
import { isOpen, renderTool } from './tools.js';
import { renderView } from './views.js';

const STORAGE_PREFIX = 'analyst-chat:session:';

export const DEFAULT_SUGGESTIONS = [
  'Which sources are available?',
  'Compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024',
  'Amount by period for company 1000 in Q4 2024',
];

/** localStorage that never throws (blocked in some sandboxed iframes). */
function safeStorage(storage) {
  return {
    get(key) {
      try {
        return storage?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    set(key, value) {
      try {
        storage?.setItem(key, value);
      } catch {
        // not persisted: the chat still works for this page view
      }
    },
    remove(key) {
      try {
        storage?.removeItem(key);
      } catch {
        // ignore
      }
    },
  };
}

function defaultStorage() {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/**
 * @param {HTMLElement | ShadowRoot} container
 * @param {{apiUrl?: string, apiKey?: string, compact?: boolean, title?: string, locale?: string,
 *   headingLevel?: number, autofocus?: boolean, suggestions?: string[], storage?: Storage}} options
 */
export function mountChat(container, options = {}) {
  const apiUrl = normalizeApiUrl(options.apiUrl, globalThis.location?.href ?? 'http://localhost/');
  const client = createClient({ apiUrl, apiKey: options.apiKey });
  // Set by the page or the embedding: the service words its answers in it too. Unset: en-US
  // here, and the service's default.
  const requestLocale = canonicalLocale(options.locale);
  const locale = requestLocale ?? 'en-US';
  const storage = safeStorage(options.storage ?? defaultStorage());
  const storageKey = STORAGE_PREFIX + apiUrl;
  const level = Math.min(Math.max(options.headingLevel ?? 2, 1), 5);
  const suggestions = options.suggestions?.length ? options.suggestions : DEFAULT_SUGGESTIONS;

  let sessionId = storage.get(storageKey);
  /** The running question: its AbortController and turn. */
  let running = null;
  const charts = new Set();
  let restoring = null;

  // ---------------------------------------------------------------------------------------------
  // Layout

  const inputId = uniqueId('ac-input');
  const hintId = uniqueId('ac-hint');
  const titleId = uniqueId('ac-title');

  const newButton = h('button', { type: 'button', class: 'ac-button ac-new', onClick: () => newChat() }, h('span', { 'aria-hidden': 'true' }, '+ '), 'New chat');
  const header = h(
    'header',
    { class: 'ac-header' },
    h(`h${level}`, { class: 'ac-title', id: titleId }, options.title || 'Data analyst'),
    newButton,
  );
  const log = h('div', { class: 'ac-log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-labelledby': titleId, tabindex: '0' });
  const status = h('div', { class: 'ac-sr', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
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
  const form = h(
    'form',
    { class: 'ac-composer', onSubmit: onSubmit },
    h('label', { for: inputId, class: 'ac-sr' }, 'Ask a question about your data'),
    h('div', { class: 'ac-input-row' }, input, sendButton),
    h('p', { id: hintId, class: 'ac-hint' }, h('kbd', {}, 'Enter'), ' to send · ', h('kbd', {}, 'Shift+Enter'), ' new line · ', h('kbd', {}, 'Esc'), ' stop'),
  );
  const root = h('div', { class: 'ac', data: { mode: options.compact ? 'compact' : 'full' }, onKeydown: onRootKeydown }, header, log, status, form);
  container.append(root);
  /** What result views need from the chat: the locale, heading level, announcements, a host. */
  const viewContext = { locale, headingLevel: level, announce, host: root };

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      send();
    }
  });
  input.addEventListener('input', autosize);
  sendButton.addEventListener('click', (event) => {
    if (!running) return; // a submit: onSubmit sends
    event.preventDefault();
    cancel();
    input.focus();
  });

  // ---------------------------------------------------------------------------------------------
  // Behaviour

  function onSubmit(event) {
    event.preventDefault();
    send();
    input.focus(); // also after clicking Send: the next question is typed right away
  }

  function onRootKeydown(event) {
    if (event.key === 'Escape' && running) {
      event.preventDefault();
      cancel();
    }
  }

  function autosize() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 200)}px`;
  }

  function announce(text) {
    status.textContent = '';
    // A fresh text node so screen readers announce repeats too.
    setTimeout(() => {
      status.textContent = text;
    }, 50);
  }

  function setSession(id) {
    if (!id || id === sessionId) return;
    sessionId = id;
    storage.set(storageKey, id);
  }

  function forgetSession() {
    sessionId = null;
    storage.remove(storageKey);
  }

  function setRunning(on) {
    root.toggleAttribute('data-running', on);
    sendButton.textContent = on ? 'Stop' : 'Send';
    sendButton.classList.toggle('ac-stop', on);
    if (on) sendButton.setAttribute('aria-label', 'Stop the answer (Escape)');
    else sendButton.removeAttribute('aria-label');
  }

  /**
   * Follows the answer as it grows, but never past its question: once the answer is taller than
   * the conversation pane, the question stays at the top and the reader scrolls on. Scrolling by
   * hand (wheel, touch, keys) stops the following until the next question.
   */
  let following = null;
  function follow(turnElement) {
    following = turnElement;
  }
  function track() {
    if (!following?.isConnected) return;
    const bottom = log.scrollHeight - log.clientHeight;
    log.scrollTop = Math.max(0, Math.min(bottom, following.offsetTop - 8));
  }
  const stopFollowing = () => {
    following = null;
  };
  log.addEventListener('wheel', stopFollowing, { passive: true });
  log.addEventListener('touchmove', stopFollowing, { passive: true });
  log.addEventListener('keydown', (event) => {
    if (['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' '].includes(event.key)) stopFollowing();
  });
  /** Runs `change`, then keeps the followed answer in view. */
  function keepPinned(change) {
    change();
    track();
  }

  function send() {
    const message = input.value.trim();
    if (!message) return;
    if (running) {
      announce('An answer is still running: wait for it, or press Escape to stop it.');
      return;
    }
    input.value = '';
    autosize();
    void ask(message);
  }

  function cancel() {
    running?.controller.abort();
  }

  let emptyState = null;
  function showEmpty() {
    if (emptyState || log.querySelector('.ac-turn')) return;
    emptyState = h(
      'div',
      { class: 'ac-empty' },
      h('p', { class: 'ac-empty-lead' }, 'Ask about your finance data: totals and breakdowns, or why two sources differ.'),
      h(
        'ul',
        { class: 'ac-suggestions', 'aria-label': 'Example questions' },
        suggestions.map((text) =>
          h('li', {}, h('button', { type: 'button', class: 'ac-suggestion', onClick: () => {
            input.focus();
            if (!running) void ask(text);
          } }, text)),
        ),
      ),
    );
    log.append(emptyState);
  }
  function hideEmpty() {
    emptyState?.remove();
    emptyState = null;
  }

  function notice(text, kind = 'info') {
    const element = h('p', { class: `ac-notice ac-notice-${kind}`, role: kind === 'error' ? 'alert' : undefined }, text);
    log.append(element);
    return element;
  }

  /** Asks one question: streams the answer into a new turn. */
  async function ask(message, { retried = false } = {}) {
    hideEmpty();
    const turn = createTurn(message);
    log.append(turn.element);
    follow(turn.element);
    track();
    const controller = new AbortController();
    running = { controller, turn };
    setRunning(true);
    const started = performance.now();
    let retry = false;
    try {
      const body = await client.chat({
        message,
        sessionId,
        locale: requestLocale,
        signal: controller.signal,
        on: {
          token: (data) => keepPinned(() => turn.appendToken(data?.text ?? '')),
          tool_start: (data) => keepPinned(() => turn.toolStart(data)),
          tool_result: (data) => keepPinned(() => turn.toolResult(data)),
        },
      });
      setSession(body.session_id);
      keepPinned(() => turn.finish(body, performance.now() - started));
      announce(body.finished === false ? 'The answer stopped early; see the note below it.' : 'Answer complete.');
    } catch (error) {
      if (controller.signal.aborted) {
        turn.stopped();
        announce('Stopped.');
      } else if (error instanceof ApiError && error.type === '/problems/session-not-found' && !retried) {
        // The stored conversation expired on the server: say so and ask again in a new one.
        forgetSession();
        turn.element.remove();
        notice('The earlier conversation is no longer available on the server; this question starts a new one.');
        retry = true;
      } else {
        if (error instanceof ApiError && typeof error.problem.session_id === 'string') setSession(error.problem.session_id);
        turn.fail(error);
        announce(`Error: ${errorText(error).title}`);
      }
    } finally {
      if (running?.controller === controller) {
        running = null;
        setRunning(false);
      }
    }
    if (retry) await ask(message, { retried: true });
  }

  function errorText(error) {
    if (error instanceof ApiError) {
      const problem = error.problem;
      const title = problem.title || 'The service reported an error';
      const detail = [problem.detail, problem.request_id ? `(request ${problem.request_id})` : ''].filter(Boolean).join(' ');
      return { title, detail };
    }
    if (error instanceof TypeError) {
      const crossOrigin = globalThis.location && new URL(apiUrl).origin !== globalThis.location.origin;
      const hint = crossOrigin ? ` If it is running, it may not allow calls from ${globalThis.location.origin}: add that origin to the service's CORS_ORIGINS.` : ' Check the connection and try again.';
      return { title: 'Could not reach the analyst service', detail: `No answer from ${apiUrl}.${hint}` };
    }
    return { title: 'Something went wrong', detail: String(error?.message ?? error) };
  }

  function newChat() {
    cancel();
    for (const chart of charts) chart.destroy();
    charts.clear();
    restoring?.abort();
    log.replaceChildren();
    emptyState = null;
    forgetSession();
    showEmpty();
    input.value = '';
    autosize();
    input.focus();
    announce('New conversation.');
  }

  /** Brings back the stored conversation (GET /sessions/{id}); a 404 starts fresh. */
  async function restore() {
    if (!sessionId) {
      showEmpty();
      return;
    }
    const controller = new AbortController();
    restoring = controller;
    const placeholder = h('p', { class: 'ac-notice ac-loading' }, 'Loading the conversation…');
    log.append(placeholder);
    try {
      const session = await client.session(sessionId, { signal: controller.signal });
      if (!session) {
        forgetSession();
        return;
      }
      const turns = Array.isArray(session.turns) ? session.turns : [];
      for (const record of turns) {
        const turn = createTurn(record.question ?? '');
        log.insertBefore(turn.element, placeholder);
        const took = Date.parse(record.finished_at) - Date.parse(record.started_at);
        turn.finish(record, Number.isFinite(took) ? took : undefined);
      }
      if (turns.length) announce(`Restored ${turns.length === 1 ? 'one earlier question' : `${turns.length} earlier questions`}.`);
    } catch (error) {
      if (controller.signal.aborted) return;
      const { title, detail } = errorText(error);
      log.insertBefore(h('p', { class: 'ac-notice ac-notice-error', role: 'alert' }, `Could not load the earlier conversation. ${title}. ${detail}`), placeholder);
    } finally {
      placeholder.remove();
      if (restoring === controller) restoring = null;
      if (!controller.signal.aborted) {
        showEmpty();
        // Show the last question with its answer.
        const turns = log.querySelectorAll('.ac-turn');
        if (turns.length) {
          follow(turns[turns.length - 1]);
          track();
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One question and its answer

  function createTurn(question) {
    const answer = h('div', { class: 'ac-answer', 'aria-busy': 'true' }, h('span', { class: 'ac-typing', 'aria-label': 'Working' }, h('span'), h('span'), h('span')));
    const toolList = h('ol', { class: 'ac-tools', 'aria-label': 'Tool calls' });
    const results = h('div', { class: 'ac-results' });
    const meta = h('p', { class: 'ac-meta' });
    const element = h(
      'article',
      { class: 'ac-turn' },
      h('div', { class: 'ac-question' }, h('span', { class: 'ac-sr' }, 'You asked: '), h('p', {}, question)),
      h('div', { class: 'ac-reply' }, h('span', { class: 'ac-sr' }, 'Answer: '), toolList, answer, results, meta),
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

    function showResults(calls) {
      clearCharts();
      results.replaceChildren();
      for (const call of calls) {
        for (const view of viewsFor(call, calls, { locale })) {
          const { element: viewElement, canvas, spec } = renderView(view, viewContext);
          results.append(viewElement);
          if (canvas) {
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
        }
      }
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
        const entry = { call, element: renderTool(call, 'running', { locale }) };
        tools.set(data.id, entry);
        toolList.append(entry.element);
      },
      toolResult(data) {
        if (!data?.id) return;
        const previous = tools.get(data.id);
        const call = { ...(previous?.call ?? { id: data.id, name: data.name }), ok: data.ok, result: data.result, duration_ms: data.duration_ms, ...(data.presentation ? { presentation: data.presentation } : {}) };
        const element = renderTool(call, data.ok ? 'ok' : 'error', { open: isOpen(previous?.element), locale });
        if (previous) previous.element.replaceWith(element);
        else toolList.append(element);
        tools.set(data.id, { call, element });
        showResults(streamedCalls());
      },
      /** The final body (or a stored turn): authoritative answer, complete tool results. */
      finish(body, tookMs) {
        const calls = Array.isArray(body.tool_calls) ? body.tool_calls : [];
        const openIds = new Set([...tools.entries()].filter(([, entry]) => isOpen(entry.element)).map(([id]) => id));
        tools.clear();
        toolList.replaceChildren(
          ...calls.map((call) => {
            const element = renderTool(call, call.ok ? 'ok' : 'error', { open: openIds.has(call.id), locale });
            tools.set(call.id, { call, element });
            return element;
          }),
        );
        answer.replaceChildren(renderAnswer(body.answer ?? streamed));
        answer.setAttribute('aria-busy', 'false');
        showResults(calls);
        const parts = [];
        if (typeof body.iterations === 'number') parts.push(`${body.iterations} model ${body.iterations === 1 ? 'call' : 'calls'}`);
        parts.push(`${calls.length} tool ${calls.length === 1 ? 'call' : 'calls'}`);
        if (typeof body.usage?.total_tokens === 'number') parts.push(`${formatNumber(body.usage.total_tokens, { locale })} tokens`);
        if (typeof tookMs === 'number') parts.push(formatDuration(tookMs, { locale }));
        meta.replaceChildren(parts.join(' · '));
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
      fail(error) {
        answer.setAttribute('aria-busy', 'false');
        if (!streamed) answer.replaceChildren();
        const { title, detail } = errorText(error);
        meta.replaceChildren(h('div', { class: 'ac-error', role: 'alert' }, h('strong', {}, title), detail ? h('span', {}, ` ${detail}`) : null));
      },
    };
  }

  // ---------------------------------------------------------------------------------------------

  autosize();
  void restore();
  if (options.autofocus) input.focus({ preventScroll: true });

  return {
    /** Asks a question as if typed. */
    ask: (message) => ask(String(message)),
    newChat,
    cancel,
    setApiKey: (key) => client.setApiKey(key),
    get sessionId() {
      return sessionId;
    },
    get apiUrl() {
      return apiUrl;
    },
    focus: () => input.focus(),
    destroy() {
      cancel();
      restoring?.abort();
      for (const chart of charts) chart.destroy();
      charts.clear();
      root.remove();
    },
  };
}
