/**
 * Structured logging with pino: JSON lines in production, readable lines in a terminal.
 * Secrets are redacted wherever they might appear.
 */
import pino, { type Logger } from 'pino';
import { redactUrls, redactValue, safeUrl } from '../shared/redact.ts';

export type { Logger };

/**
 * The error serializer of every logger (pino-http's request loggers too): pino's standard one,
 * then every URL in it stripped of credentials and query strings. A model client's error can
 * carry the endpoint URL verbatim, e.g. "…a URL that includes credentials: http://user:pass@…".
 * @example
 * createLogger({ level: 'info', format: 'json' }).error({ err }, 'model call failed');
 */
export function safeErrorSerializer(error: unknown): unknown {
  return redactValue(pino.stdSerializers.err(error as Error));
}

/** Where model endpoint URLs sit in logged objects: logged without credentials or query string. */
const urlPaths = ['model.base_url', '*.base_url', 'base_url', 'baseUrl', '*.baseUrl', 'config.model.baseUrl'];

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty' | 'auto';
  /** Where lines go (default stdout); `stderr` when stdout carries a protocol (the MCP stdio server). */
  destination?: 'stdout' | 'stderr';
}

/**
 * Creates the service logger; `auto` pretty-prints only when the destination is a terminal.
 * @example
 * createLogger({ level: 'info', format: 'auto', destination: 'stderr' }); // stdout stays free for MCP
 */
export function createLogger(options: LoggerOptions): Logger {
  const toStderr = options.destination === 'stderr';
  const pretty = options.format === 'pretty' || (options.format === 'auto' && (toStderr ? process.stderr : process.stdout).isTTY === true);
  const settings: pino.LoggerOptions = {
    level: options.level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'apiKey', '*.apiKey', 'config.model.apiKey', ...urlPaths],
      // URLs stay useful without their secrets; everything else listed is a secret outright.
      censor: (value, path) => (/base_?url$/i.test(path.at(-1) ?? '') && typeof value === 'string' ? safeUrl(value) : '[redacted]'),
    },
    serializers: { err: safeErrorSerializer },
    // Messages built from error texts may hold a URL too.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactUrls(arg) : arg)) as Parameters<typeof method>);
      },
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', ...(toStderr ? { destination: 2 } : {}) } } } : {}),
  };
  // Synchronous writes to stderr: nothing is lost when the process ends as its client closes stdin.
  return toStderr && !pretty ? pino(settings, pino.destination({ dest: 2, sync: true })) : pino(settings);
}

/** A logger that discards everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
