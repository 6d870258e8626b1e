/**
 * Access control for the HTTP API: who is calling (the key's identity, or nobody), the 401
 * for requests without a valid key, and which routes stay public so a browser can load the
 * web chat (which then sends the key on its API calls).
 *
 * When `API_KEYS` is not set, nothing is checked and requests have no identity: sessions are
 * shared, as before. When it is set, every route except GET /health and the web page with its
 * static assets (/, /embed, /embed.js, /app/*, /vendor/*, /openapi.yaml) needs
 * `Authorization: Bearer <key>` with one of the keys; unknown routes too (no route discovery).
 */
import type { Request, RequestHandler, Response } from 'express';
import { sendProblem } from '../problem.ts';
import type { Caller } from '../../scopes/dataScope.ts';
import { bearerToken, type ApiKeys } from './apiKeys.ts';

/** Where a request's caller is kept (name, identity and scope; never the key). */
const CALLER = 'accessCaller';

/** Who made the request: the key's caller; undefined when API keys are off or no valid key was sent. */
export function callerOf(response: Response): Caller | undefined {
  const caller: unknown = response.locals[CALLER];
  return typeof caller === 'object' && caller !== null ? (caller as Caller) : undefined;
}

/** The identity the request's sessions are owned by (the key's short hash); undefined without keys. */
export function ownerOf(response: Response): string | undefined {
  return callerOf(response)?.identity;
}

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

/** Records who is calling (a valid key's identity), without refusing anything yet: the rate limit keys on it. */
export function identifyCaller(keys: ApiKeys): RequestHandler {
  return (request, response, next) => {
    if (keys.enabled) {
      const token = bearerToken(request.headers.authorization);
      const caller = token === undefined ? undefined : keys.identify(token);
      if (caller !== undefined) response.locals[CALLER] = caller;
    }
    next();
  };
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
