/**
 * Access control for the HTTP API (who is calling: src/access/caller.ts): the 401
 * for requests without a valid key, and which routes stay public so a browser can load the
 * web chat (which then sends the key on its API calls).
 *
 * When `API_KEYS` is not set, nothing is checked and requests have no identity: sessions are
 * shared, as before. When it is set, every route except GET /health and the web page with its
 * static assets (/, /embed, /embed.js, /app/*, /vendor/*, /openapi.yaml) needs
 * `Authorization: Bearer <key>` with one of the keys; unknown routes too (no route discovery).
 */
import type { Request, RequestHandler } from 'express';
import { callerOf } from '../../access/caller.ts';
import type { ApiKeys } from '../../access/apiKeys.ts';
import { sendProblem } from '../problem.ts';

/** Routes anyone may GET (or HEAD): liveness, the web chat, its assets and the API description. */
export function isPublicRoute(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const route = request.path;
  return (
    route === '/health' ||
    route === '/' ||
    route === '/embed' ||
    route === '/embed.js' ||
    route === '/openapi.yaml' ||
    route.startsWith('/app/') ||
    route.startsWith('/vendor/')
  );
}

/** Refuses (401) a request for a protected route without a valid key. */
export function requireApiKey(keys: ApiKeys): RequestHandler {
  return (request, response, next) => {
    if (!keys.enabled || isPublicRoute(request) || callerOf(response) !== undefined) return next();
    const sent = request.headers.authorization !== undefined;
    response.setHeader('WWW-Authenticate', sent ? 'Bearer realm="analyst-agent", error="invalid_token"' : 'Bearer realm="analyst-agent"');
    sendProblem(
      response,
      'unauthorized',
      sent
        ? "The API key is not valid. Send 'Authorization: Bearer <key>' with one of the service's API keys."
        : "This route needs an API key: send 'Authorization: Bearer <key>'.",
    );
  };
}
