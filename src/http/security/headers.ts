/**
 * Security headers (helmet, with its defaults) on every response, except two things the web
 * chat needs: no global Content-Security-Policy (the pages set their own, stricter one in
 * routes/web.ts; an API response has nothing to run), and no `X-Frame-Options` on GET /embed,
 * the page dashboards put in an iframe (the other pages are kept to their own origin both by
 * `X-Frame-Options: SAMEORIGIN` and by their policy's `frame-ancestors 'self'`).
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

export function securityHeaders(): RequestHandler {
  const everywhere = helmet({ contentSecurityPolicy: false });
  const framable = helmet({ contentSecurityPolicy: false, xFrameOptions: false });
  return (request, response, next) => {
    const embed = (request.method === 'GET' || request.method === 'HEAD') && request.path === '/embed';
    (embed ? framable : everywhere)(request, response, next);
  };
}
