/**
 * The conversation across page loads: its session id is kept in localStorage per API URL, and on
 * load the earlier questions and answers come back from GET /sessions/{id} (a 404 starts a fresh
 * conversation). Storage may be blocked (sandboxed iframes): then the chat still works, unsaved.
 */
import { h } from './dom.js';
import { describeError, notice } from './errors.js';

const STORAGE_PREFIX = 'analyst-chat:session:';

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
 * The session id of the chat with `apiUrl`, read from and written to `storage`.
 * @param {Storage | undefined} storage default: localStorage (when the page may use it)
 * @param {string} apiUrl one conversation per service
 * @returns {{readonly id: string | null, remember: (id: string | undefined) => void, forget: () => void}}
 *   remember: keep the id the service answered with (nothing given, or the same: nothing changes)
 * @example
 * const session = createSessionStore(undefined, 'https://analyst.example.com/');
 * session.remember(body.session_id);
 * session.forget(); // New chat
 */
export function createSessionStore(storage, apiUrl) {
  const store = safeStorage(storage ?? defaultStorage());
  const key = STORAGE_PREFIX + apiUrl;
  let id = store.get(key);
  return {
    get id() {
      return id;
    },
    remember(newId) {
      if (!newId || newId === id) return;
      id = newId;
      store.set(key, newId);
    },
    forget() {
      id = null;
      store.remove(key);
    },
  };
}

/**
 * Brings back the stored conversation (GET /sessions/{id}) into `log`, then shows the last
 * question with its answer; without a session, or when it is gone, the empty state.
 * @param {{client: object, session: ReturnType<typeof createSessionStore>, apiUrl: string, log: HTMLElement,
 *   newTurn: (question: string) => {element: HTMLElement, finish: (record: object, tookMs?: number) => void},
 *   follower: {follow: (element: HTMLElement) => void, track: () => void}, showEmpty: () => void,
 *   announce: (text: string) => void}} chat
 * @returns {{abort: () => void} | null} a way to stop it while it loads (New chat); null: nothing to load
 * @example
 * const restoring = restoreConversation({ client, session, apiUrl, log, newTurn, follower, showEmpty, announce });
 * restoring?.abort();
 */
export function restoreConversation({ client, session, apiUrl, log, newTurn, follower, showEmpty, announce }) {
  if (!session.id) {
    showEmpty();
    return null;
  }
  const controller = new AbortController();
  let settled = false;
  const placeholder = h('p', { class: 'ac-notice ac-loading' }, 'Loading the conversation…');
  log.append(placeholder);

  async function load() {
    try {
      const stored = await client.session(session.id, { signal: controller.signal });
      if (!stored) {
        session.forget();
        return;
      }
      const turns = Array.isArray(stored.turns) ? stored.turns : [];
      for (const record of turns) {
        const turn = newTurn(record.question ?? '');
        log.insertBefore(turn.element, placeholder);
        const took = Date.parse(record.finished_at) - Date.parse(record.started_at);
        turn.finish(record, Number.isFinite(took) ? took : undefined);
      }
      if (turns.length) announce(`Restored ${turns.length === 1 ? 'one earlier question' : `${turns.length} earlier questions`}.`);
    } catch (error) {
      if (controller.signal.aborted) return;
      const { title, detail } = describeError(error, apiUrl);
      log.insertBefore(notice(`Could not load the earlier conversation. ${title}. ${detail}`, 'error'), placeholder);
    } finally {
      placeholder.remove();
      settled = true;
      if (!controller.signal.aborted) {
        showEmpty();
        // Show the last question with its answer.
        const turns = log.querySelectorAll('.ac-turn');
        if (turns.length) {
          follower.follow(turns[turns.length - 1]);
        }
      }
    }
  }
  void load();

  return {
    abort() {
      // Once loaded there is nothing to stop.
      if (!settled) controller.abort();
    },
  };
}
