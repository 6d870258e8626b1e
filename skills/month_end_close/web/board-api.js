/**
 * The close tools as the board calls them (POST /tools/{name} through api.js, with the page's
 * key), and what went wrong in words a controller can act on: the tool's own message and hint
 * for a refusal, how to pass a key for a 401, errors.js's wording for anything else.
 */
import { ApiError, createClient } from '../api.js';
import { describeError } from '../errors.js';

/**
 * A client for the board.
 * @param {{apiUrl: string, apiKey?: string}} options apiUrl: the service, with a trailing slash
 * @example
 * const api = createBoardApi({ apiUrl: 'https://analyst.example.com/', apiKey: 'KEY' });
 * const { checks } = await api.listChecks();
 */
export function createBoardApi({ apiUrl, apiKey }) {
  const client = createClient({ apiUrl, apiKey });
  return {
    apiUrl,
    /** Every check the key may see, with its status (list_checks). */
    listChecks: (options) => client.tool('list_checks', {}, options),
    /** One check's runs, trend, open items and sign-offs (check_history). */
    history: (check, options) => client.tool('check_history', { check }, options),
    /** Runs a check now; resolves with the run (run_check). */
    runCheck: (check, options) => client.tool('run_check', { check }, options),
    /** The words for a failed call. */
    errorText: (error) => errorText(error, apiUrl),
  };
}

/**
 * What went wrong with a call, as one sentence or two.
 * @param {unknown} error from api.js (ApiError), fetch (TypeError) or anything else
 * @param {string} apiUrl the service, named when it could not be reached
 * @returns {string}
 */
export function errorText(error, apiUrl) {
  if (error instanceof ApiError && error.status === 401) {
    return `${error.message} This board needs an API key: open it as ${new URL('app/checks', apiUrl).href}#api-key=YOUR_KEY.`;
  }
  // A tool's refusal (422) or a busy check (503): the tool says what and what to do.
  const toolError = error instanceof ApiError ? error.problem?.error : undefined;
  // Its hint may point at `choices` (an unknown check's name): name them, the reader cannot see the error object.
  const choices = Array.isArray(toolError?.choices) && toolError.choices.length ? `Choices: ${toolError.choices.join(', ')}.` : '';
  if (toolError?.message) return [toolError.message, toolError.hint, choices].filter(Boolean).join(' ');
  const { title, detail } = describeError(error, apiUrl);
  return detail ? `${title}: ${detail}` : title;
}
