/**
 * What went wrong, in words a reader can act on: a failed request, an unreachable service (with
 * the CORS hint when the API is on another origin), anything else. Also the notice line the chat
 * puts in the conversation for things that are not an answer. Shared by asking and restoring.
 */
import { ApiError } from './api.js';
import { h } from './dom.js';

/**
 * A title and a detail for an error from the API client.
 * @param {unknown} error an ApiError (the service's problem), a TypeError (no answer), anything
 * @param {string} apiUrl the service's URL, named when it could not be reached
 * @returns {{title: string, detail: string}}
 * @example
 * const { title, detail } = describeError(error, 'https://analyst.example.com/');
 * // title: 'Could not reach the analyst service', detail: 'No answer from https://…'
 */
export function describeError(error, apiUrl) {
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

/**
 * A notice line for the conversation (not yet placed); errors are alerts.
 * @param {string} text
 * @param {'info' | 'error'} [kind]
 * @returns {HTMLParagraphElement}
 * @example
 * log.append(notice('This question starts a new conversation.'));
 */
export function notice(text, kind = 'info') {
  return h('p', { class: `ac-notice ac-notice-${kind}`, role: kind === 'error' ? 'alert' : undefined }, text);
}
