/**
 * Server-Sent Events for live answers: `token`, `tool_start`, `tool_result`, then `final` (the
 * same body as a non-streamed response) or `error` (a problem document). A comment line every
 * few seconds keeps proxies from closing a quiet stream while a long query runs.
 */
import type { Response } from 'express';
import type { AgentEvent } from '../agent/events.ts';
import { trackEventStream } from '../observability/observe.ts';
import { registerOpenStream } from './shutdown.ts';

const HEARTBEAT_MS = 15_000;

export interface EventStream {
  send(event: AgentEvent): void;
  /** Sends `final` and ends the stream. */
  final(body: unknown): void;
  /** Sends `error` and ends the stream. */
  error(problem: unknown): void;
}

/** Starts an event stream on `response` (status 200, no buffering). */
export function openEventStream(response: Response): EventStream {
  response.status(200);
  response.setHeader('content-type', 'text/event-stream; charset=utf-8');
  response.setHeader('cache-control', 'no-cache, no-transform');
  response.setHeader('connection', 'keep-alive');
  // Reverse proxies (nginx) buffer responses unless told not to.
  response.setHeader('x-accel-buffering', 'no');
  response.flushHeaders();
  trackEventStream(response);
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  response.on('close', () => clearInterval(heartbeat));
  const write = (name: string, data: unknown) => {
    if (!response.writableEnded) response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const end = (name: string, data: unknown) => {
    clearInterval(heartbeat);
    write(name, data);
    if (!response.writableEnded) response.end();
  };
  // A graceful shutdown ends a stream still open after its grace period with an `error` event.
  response.on('close', registerOpenStream((problem) => end('error', problem)));
  return {
    send: ({ type, ...data }) => write(type, data),
    final: (body) => end('final', body),
    error: (problem) => end('error', problem),
  };
}

/** Whether the client asked for a stream: `"stream": true` or `Accept: text/event-stream`. */
export function wantsEventStream(requestedInBody: boolean | undefined, accept: string | undefined): boolean {
  return requestedInBody === true || (requestedInBody !== false && /\btext\/event-stream\b/.test(accept ?? ''));
}
