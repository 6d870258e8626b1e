/**
 * HTTP requests with full control over the headers, for the attack suite: a forged `Host`
 * (fetch does not let one set it), and a request with no body and no Content-Length at all
 * (Node's client adds `Content-Length: 0`; curl without `-d` does not).
 */
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Parsed JSON body, when it is JSON. */
  json: any;
  ms: number;
}

/** A request through node:http with exactly these headers (Host included). */
export function send(url: string, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  const target = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: target.hostname, port: target.port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, json: parse(body), ms: performance.now() - started }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** The exact bytes of a request without a body and without Content-Length; returns status and body. */
export function sendWithoutLength(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, body: received.slice(received.indexOf('\r\n\r\n') + 4) });
    });
    const lines = [`POST ${path} HTTP/1.1`, `Host: ${target.host}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

function parse(body: string): any {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
