/**
 * Rate limiting (`RATE_LIMIT_PER_MINUTE`): a fixed one-minute window per API key (its identity,
 * when a valid key was sent) or else per client IP (IPv6 by /56 subnet). Every limited response
 * carries the standard `RateLimit` and `RateLimit-Policy` headers (IETF draft 8); past the limit
 * the answer is a 429 problem (`/problems/rate-limited`) with `Retry-After`. GET /health and the
 * web app's static files (/app/*, /vendor/*, /embed.js: a page load fetches two dozen) are exempt.
 */
import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { sendProblem } from '../problem.ts';
import { ownerOf } from '../../access/caller.ts';

/** A limiter allowing `perMinute` requests a minute; undefined when `perMinute` is 0 (no limit). */
export function rateLimiter(perMinute: number): RequestHandler | undefined {
  if (perMinute <= 0) return undefined;
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'per-minute',
    // The web app's modules, styles and vendored libraries (not its pages) are not API work.
    skip: (request) => request.path === '/health' || (request.method === 'GET' && /^\/(?:app|vendor)\/|^\/embed\.js$/.test(request.path)),
    keyGenerator: (request, response) => {
      const owner = ownerOf(response);
      return owner !== undefined ? `key:${owner}` : `ip:${ipKeyGenerator(request.ip ?? 'unknown', 56)}`;
    },
    handler: (_request, response) => {
      const retryAfter = Number(response.getHeader('Retry-After') ?? 60);
      sendProblem(response, 'rateLimited', `Too many requests: at most ${perMinute} a minute. Try again in ${retryAfter} seconds.`, { retry_after: retryAfter });
    },
  });
}
