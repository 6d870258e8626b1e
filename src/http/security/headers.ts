/**
 * Security headers (helmet, with its defaults) on every response, except two things the web
 * chat needs: no global Content-Security-Policy (the pages set their own, stricter one in
 * routes/web.ts; an API response has nothing to run), and no `X-Frame-Options` on the pages
 * dashboards put in an iframe, GET /embed and GET /app/checks (the other pages are kept to their
 * own origin both by `X-Frame-Options: SAMEORIGIN` and by their policy's `frame-ancestors 'self'`).
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Pages a dashboard may frame: the compact chat and the close board. */
const FRAMABLE_PAGES = new Set(['/embed', '/app/checks']);

export function securityHeaders(): RequestHandler {
  const everywhere = helmet({ contentSecurityPolicy: false });
  const framable = helmet({ contentSecurityPolicy: false, xFrameOptions: false });
  return (request, response, next) => {
    const framed = (request.method === 'GET' || request.method === 'HEAD') && FRAMABLE_PAGES.has(request.path);
    (framed ? framable : everywhere)(request, response, next);
  };
}
