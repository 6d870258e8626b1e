/**
 * A webhook receiver for the outbox tests: a real HTTP server on 127.0.0.1 that records every
 * request and answers with the statuses a test lines up (then 200), and the signature check a
 * receiver runs, written as docs/notifications.md tells receivers to write it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../../src/logging/logger.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers next: a status, or a status with headers (Retry-After). */
export type Answer = number | { status: number; headers: Record<string, string> };

export interface Receiver {
  /** With a token in the path and the query, as chat webhooks have: neither may reach a log. */
  url: string;
  requests: ReceivedRequest[];
  /** Answers still to give, in order; when empty, 200. */
  answers: Answer[];
  close(): Promise<void>;
}

/**
 * Starts a receiver.
 * @example
 * const receiver = await startReceiver([500]); // the first request gets 500, the next ones 200
 */
export async function startReceiver(answers: Answer[] = []): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? 200;
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T0KEN-IN-PATH?token=query-secret`,
    requests,
    answers,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A URL nothing listens on (a port that was free a moment ago).
 * @example
 * const url = await unreachableUrl(); // http://127.0.0.1:PORT/hook
 */
export async function unreachableUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}

/**
 * What a receiver checks: the signature over `<timestamp>.<body>` with the shared secret,
 * compared in constant time, and a timestamp within five minutes of its own clock.
 * @example
 * expect(verified(request, secret, Date.now())).toBe(true);
 */
export function verified(request: ReceivedRequest, secret: string, nowMs: number): boolean {
  const timestamp = String(request.headers['x-analyst-timestamp'] ?? '');
  const received = Buffer.from(String(request.headers['x-analyst-signature'] ?? ''));
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`);
  const fresh = Math.abs(nowMs / 1000 - Number(timestamp)) < 300;
  return fresh && received.length === expected.length && timingSafeEqual(received, expected);
}

/**
 * A logger whose lines the test reads.
 * @example
 * const { logger, lines } = capturedLogger();
 */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}
