/**
 * Security headers (helmet, with its defaults) on every response, except two things the web
 * chat needs: no global Content-Security-Policy (the pages set their own, stricter one in
 * routes/web.ts; an API response has nothing to run), and no `X-Frame-Options` on the pages
 * dashboards put in an iframe, GET /embed and the skills' pages declared framable (the other
 * pages are kept to their own origin both by `X-Frame-Options: SAMEORIGIN` and by their
 * policy's `frame-ancestors 'self'`).
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The headers, `framable` saying which paths dashboards may frame (routes/web.ts framablePage).
 * @example
 * app.use(securityHeaders((path) => framablePage(services.registry, path)));
 */
export function securityHeaders(framable: (path: string) => boolean): RequestHandler {
  const everywhere = helmet({ contentSecurityPolicy: false });
  const inFrames = helmet({ contentSecurityPolicy: false, xFrameOptions: false });
  return (request, response, next) => {
    const framed = (request.method === 'GET' || request.method === 'HEAD') && framable(request.path);
    (framed ? inFrames : everywhere)(request, response, next);
  };
}
