/**
 * The service's HTTP API as the chat and the skills' pages use it: POST /chat as a Server-Sent
 * Events stream (or a plain JSON answer when the server does not stream), GET/DELETE
 * /sessions/{id}, and POST /tools/{name} (a page calls its skill's tools directly).
 * Errors are problem documents (RFC 9457), thrown as ApiError.
 */
import { createParser } from '../vendor/eventsource-parser.js';

/** A locale as POST /chat accepts it (openapi.yaml, ChatRequest.locale). */
const LOCALE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export class ApiError extends Error {
  /** @param {{type?: string, title?: string, status?: number, detail?: string}} problem */
  constructor(problem, status) {
    super(problem.detail || problem.title || `The service answered ${status}.`);
    this.name = 'ApiError';
    this.problem = problem;
    this.status = problem.status ?? status;
    this.type = problem.type ?? '';
  }
}

/** Base URL with a trailing slash, so relative paths resolve below it (`…/analyst/` + `chat`). */
export function normalizeApiUrl(apiUrl, fallback) {
  const url = new URL(apiUrl || fallback, fallback);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

export function createClient({ apiUrl, apiKey }) {
  const base = apiUrl;
  let key = apiKey || '';

  const headers = (extra = {}) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra });

  async function problemOf(response) {
    const text = await response.text().catch(() => '');
    try {
      const body = JSON.parse(text);
      if (body && typeof body === 'object') return new ApiError(body, response.status);
    } catch {
      // not JSON: fall through
    }
    return new ApiError({ title: `The service answered ${response.status} ${response.statusText}`.trim(), detail: text.slice(0, 300) || undefined }, response.status);
  }

  return {
    get apiUrl() {
      return base;
    },
    setApiKey(value) {
      key = value || '';
    },

    /**
     * Asks a question. `on` receives `token`, `tool_start`, `tool_result`, `answer_replaced` as they stream; the
     * promise resolves with the final body (the non-streamed /chat response). `locale` (a BCP 47
     * tag) asks for the answer's numbers in that locale's format; a tag the contract would
     * refuse is left out rather than failing the question.
     * @throws ApiError for a problem response or an `error` event; AbortError when cancelled.
     */
    async chat({ message, sessionId, locale, signal, on = {} }) {
      const wantsLocale = typeof locale === 'string' && locale.length <= 35 && LOCALE_TAG.test(locale);
      const response = await fetch(new URL('chat', base), {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json', accept: 'text/event-stream, application/json;q=0.9, application/problem+json;q=0.8' }),
        body: JSON.stringify({ message, ...(sessionId ? { session_id: sessionId } : {}), ...(wantsLocale ? { locale } : {}), stream: true }),
        signal,
      });
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok) throw await problemOf(response);
      if (!type.includes('text/event-stream')) return response.json();
      if (!response.body) throw new ApiError({ title: 'The service sent an empty stream.' }, response.status);

      let final;
      let failure;
      const parser = createParser({
        onEvent(event) {
          let data;
          try {
            data = JSON.parse(event.data);
          } catch {
            return; // not ours (a comment or a malformed line): ignore
          }
          if (event.event === 'final') final = data;
          else if (event.event === 'error') failure = new ApiError(data, data?.status ?? 500);
          else on[event.event]?.(data);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
          if (final || failure) break;
        }
      } finally {
        reader.cancel().catch(() => {});
      }
      if (failure) throw failure;
      if (!final) throw new ApiError({ title: 'The answer stream ended early', detail: 'The connection closed before the answer was complete. Try again.' }, 502);
      return final;
    },

    /**
     * Runs one tool (POST /tools/{name}) and resolves with its `result`.
     * @throws ApiError for a problem response: a tool's refusal (422) or a busy check (503)
     * carries the tool's error as `problem.error` ({code, message, hint}).
     */
    async tool(name, args = {}, { signal } = {}) {
      const response = await fetch(new URL(`tools/${encodeURIComponent(name)}`, base), {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json', accept: 'application/json, application/problem+json;q=0.9' }),
        body: JSON.stringify(args),
        signal,
      });
      if (!response.ok) throw await problemOf(response);
      return (await response.json()).result;
    },

    /** A stored conversation, or null when the service does not know it (404). */
    async session(id, { signal } = {}) {
      const response = await fetch(new URL(`sessions/${encodeURIComponent(id)}`, base), { headers: headers({ accept: 'application/json' }), signal });
      if (response.status === 404) return null;
      if (!response.ok) throw await problemOf(response);
      return response.json();
    },
  };
}
