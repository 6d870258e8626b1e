/**
 * Who is calling over HTTP: the caller a valid API key makes (name, identity, scope; never the
 * key), recorded on the response once per request. Shared by the HTTP API and the MCP endpoint,
 * which both serve on the one app (src/service.ts), so neither imports the other for it.
 */
import type { RequestHandler, Response } from 'express';
import type { Caller } from '../scopes/dataScope.ts';
import { bearerToken, type ApiKeys } from './apiKeys.ts';

/** Where a request's caller is kept (name, identity and scope; never the key). */
const CALLER = 'accessCaller';

/**
 * Who made the request: the key's caller; undefined when API keys are off or no valid key was sent.
 * @example
 * callerOf(response)?.name; // 'emea-dashboard'
 */
export function callerOf(response: Response): Caller | undefined {
  const caller: unknown = response.locals[CALLER];
  return typeof caller === 'object' && caller !== null ? (caller as Caller) : undefined;
}

/**
 * The identity the request's sessions are owned by (the key's short hash); undefined without keys.
 * @example
 * await sessions.get(id, ownerOf(response));
 */
export function ownerOf(response: Response): string | undefined {
  return callerOf(response)?.identity;
}

/**
 * Records who is calling (a valid key's identity), without refusing anything yet: the rate limit
 * keys on it, and requireApiKey (src/http/security/access.ts) refuses what needs a key.
 * @example
 * app.use(identifyCaller(new ApiKeys(config.apiKeys, config.declaredKeys)));
 */
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
