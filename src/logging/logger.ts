/**
 * Structured logging with pino: JSON lines in production, readable lines in a terminal.
 * Secrets are redacted wherever they might appear.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty' | 'auto';
}

/** Creates the service logger; `auto` pretty-prints only when stdout is a terminal. */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty' || (options.format === 'auto' && process.stdout.isTTY === true);
  return pino({
    level: options.level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'apiKey', '*.apiKey', 'config.model.apiKey'],
      censor: '[redacted]',
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  });
}

/** A logger that discards everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
