/**
 * What a request does, measured: the HTTP middleware times each request by route and keeps the
 * request's observation (this service's metrics, the request id) on the response, where the
 * routes read it to build the agent's hooks (questionTrace.ts) and event streams are counted.
 * No module-level state: two services in one process never share an observation.
 */
import type { RequestHandler, Response } from 'express';
import type { Metrics } from './metrics.ts';

/** What the middleware keeps for one request. */
export interface RequestObservation {
  metrics: Metrics;
  requestId: string;
}

/** Where the observation sits in `response.locals` (a symbol: no clash with other locals). */
const observationKey = Symbol.for('analyst.request-observation');

/**
 * The observation `observeRequests` opened for this response, if any.
 * @example
 * const { metrics, requestId } = requestObservation(response) ?? {};
 */
export function requestObservation(response: Response): RequestObservation | undefined {
  return (response.locals as { [observationKey]?: RequestObservation })[observationKey];
}

/**
 * Express middleware: times every request into `http_request_duration_seconds`, labelled by the
 * route pattern that answered (`/sessions/:id`, never the raw URL; `unmatched` when none did),
 * and keeps the request's observation on the response (requestObservation). Mount it after pino-http (request ids).
 */
export function observeRequests(metrics: Metrics): RequestHandler {
  return (request, response, next) => {
    const started = performance.now();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const route = (request.route as { path?: unknown } | undefined)?.path;
      metrics.httpRequestDuration.observe(
        { method: request.method, route: typeof route === 'string' ? route : 'unmatched', status: String(response.statusCode) },
        (performance.now() - started) / 1000,
      );
    };
    response.on('finish', record);
    response.on('close', record);
    (response.locals as { [observationKey]?: RequestObservation })[observationKey] = { metrics, requestId: String(request.id ?? '') };
    next();
  };
}

/** GET /metrics: the registry in the Prometheus text format (version 0.0.4). */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return (_request, response, next) => {
    metrics
      .exposition()
      .then(({ contentType, text }) => {
        response.setHeader('content-type', contentType);
        response.send(text);
      })
      .catch(next);
  };
}

/** Counts an open event stream in `sse_streams_active` until its response closes. */
export function trackEventStream(response: Response): void {
  const metrics = requestObservation(response)?.metrics;
  if (!metrics) return;
  metrics.sseStreamsActive.inc();
  let open = true;
  const closed = () => {
    if (!open) return;
    open = false;
    metrics.sseStreamsActive.dec();
  };
  response.on('close', closed);
  response.on('finish', closed);
}
