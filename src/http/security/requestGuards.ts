/**
 * Checks that run on every request before anything reads it:
 * - the `Host` header must name this machine (or an ALLOWED_HOSTS entry): a page on another
 *   site whose DNS name is rebound to 127.0.0.1 reaches the service with its own name as Host;
 * - API calls from a browser page must come from the service's own origin or CORS_ORIGINS: CORS
 *   alone only hides the answer, a "simple" cross-site POST would still run;
 * - a credential in the query string (`?api_key=…`) is refused: URLs end up in logs, proxies and
 *   browser history. Keys go in the `Authorization` header.
 */
import os from 'node:os';
import type { Request, RequestHandler } from 'express';
import { sendProblem } from '../problem.ts';
import { isPublicRoute } from './access.ts';

/** Names that always reach this machine only: never a DNS-rebinding vector. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
/** Listening on these means every interface: each interface's address is a name of the service. */
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '']);

/** Query parameter names that carry credentials (compared lower-case, `[]` suffix ignored). */
const CREDENTIAL_PARAMETERS = new Set([
  'api_key', 'apikey', 'api-key', 'x-api-key', 'key', 'token', 'access_token', 'access-token', 'auth', 'auth_token',
  'authorization', 'bearer', 'id_token', 'refresh_token', 'session_token', 'password', 'secret', 'client_secret',
]);

/** The host name of a `Host` header ("[::1]:3000" → "::1", "Example.com.:80" → "example.com"), lower-case. */
export function hostName(header: string): string {
  const text = header.trim().toLowerCase();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    return end === -1 ? text : text.slice(1, end);
  }
  const colon = text.indexOf(':');
  const name = colon === -1 ? text : text.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * The host names requests may be addressed to: loopback names, the listening host (every
 * interface's address and the machine's name when it listens on all), and `configured`
 * (ALLOWED_HOSTS). Undefined when the check is off (`*`).
 * @example
 * allowedHostNames([], '127.0.0.1'); // Set { 'localhost', '127.0.0.1', '::1' }
 * allowedHostNames(['analyst.example.com'], '0.0.0.0'); // … plus the interfaces' addresses, os.hostname() and analyst.example.com
 */
export function allowedHostNames(configured: readonly string[], listenHost: string): Set<string> | undefined {
  if (configured.includes('*')) return undefined;
  const names = new Set([...LOOPBACK_NAMES, ...configured.map(hostName)]);
  // HOST may be a bare IPv6 address ("::1", "::"), which has colons but no port.
  const listening = listenHost.includes('[') || listenHost.indexOf(':') === listenHost.lastIndexOf(':') ? hostName(listenHost) : listenHost.trim().toLowerCase();
  if (WILDCARD_ADDRESSES.has(listening)) {
    names.add(os.hostname().toLowerCase());
    for (const addresses of Object.values(os.networkInterfaces())) for (const address of addresses ?? []) names.add(address.address.toLowerCase());
  } else {
    names.add(listening);
  }
  return names;
}

/**
 * Refuses (403 `/problems/forbidden-host`) a request whose `Host` is not an allowed name.
 * A request without a Host header (HTTP/1.0, never a browser) passes.
 */
export function checkHost(allowed: Set<string> | undefined): RequestHandler {
  return (request, response, next) => {
    const header = request.headers.host;
    if (allowed === undefined || header === undefined || allowed.has(hostName(header))) return next();
    const shown = hostName(header).slice(0, 100);
    sendProblem(
      response,
      'forbiddenHost',
      `Requests addressed to host '${shown}' are not served: it is not a name of this service. Add it to ALLOWED_HOSTS (comma-separated host names) when the service is reached under that name.`,
    );
  };
}

/**
 * Refuses (403 `/problems/forbidden-origin`) an API call a browser page makes from another
 * origin than the service's own or one of `corsOrigins` ('*' allows any). The web chat's
 * public files may be loaded from anywhere; preflights are the CORS middleware's business.
 */
export function checkOrigin(corsOrigins: readonly string[]): RequestHandler {
  const any = corsOrigins.includes('*');
  const allowed = new Set(corsOrigins);
  return (request, response, next) => {
    const origin = request.headers.origin;
    if (any || origin === undefined || request.method === 'OPTIONS' || isPublicRoute(request) || allowed.has(origin) || sameOrigin(origin, request)) return next();
    sendProblem(
      response,
      'forbiddenOrigin',
      `Calls from pages on '${origin.slice(0, 100)}' are not allowed. Add the origin to CORS_ORIGINS to let a dashboard there call the API.`,
    );
  };
}

/** True when `origin` is the service itself as the request addressed it (scheme not compared: a proxy may end TLS). */
function sameOrigin(origin: string, request: Request): boolean {
  try {
    return new URL(origin).host === (request.headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Refuses (400 `/problems/credentials-in-query`) a query string that carries a credential,
 * naming the parameter but never echoing its value.
 */
export function refuseQueryCredentials(): RequestHandler {
  return (request, response, next) => {
    const query = request.url.indexOf('?');
    if (query === -1) return next();
    for (const name of new URLSearchParams(request.url.slice(query + 1)).keys()) {
      const normalised = name.trim().toLowerCase().replace(/\[\]$/, '');
      if (!CREDENTIAL_PARAMETERS.has(normalised)) continue;
      sendProblem(
        response,
        'credentialsInQuery',
        `The query string holds '${normalised}', which carries a credential; URLs end up in logs, proxies and browser history, so such requests are refused. Send the key in the Authorization header instead: 'Authorization: Bearer <key>'.`,
      );
      return;
    }
    next();
  };
}
