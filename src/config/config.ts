/**
 * Reads the service configuration from environment variables, once, at startup.
 * Anything invalid stops startup with a message naming the variable and what is wrong.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';
import { API_KEY_PATTERN, readKeysFile, type DeclaredKey } from './keysFile.ts';
import { safeUrl } from '../shared/redact.ts';
import { DEFAULT_DUCKDB_MEMORY_LIMIT, memorySize } from '../shared/memorySize.ts';

/** The repository root, so default paths work whatever the current directory. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

const optionalText = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const environmentSchema = z.object({
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DB: z.string().min(1).default(path.join(projectRoot, 'data/sample.db')),
  /** The default connection as a URL: sqlite:FILE, duckdb:FILE or postgres://… (instead of DATA_DB). */
  DATA_URL: z
    .string()
    .regex(/^(sqlite:|duckdb:|postgres(ql)?:\/\/)/i, { error: 'must be sqlite:FILE, duckdb:FILE or postgres://user@host:port/database' })
    .optional(),
  CATALOG: z.string().min(1).default(path.join(projectRoot, 'data/sources.yaml')),
  SKILLS_DIR: z.string().min(1).default(path.join(projectRoot, 'skills')),
  SKILLS_DISABLED: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean)),
  SKILLS_RELOAD: z.enum(['true', 'false', '1', '0', ''], { error: "must be 'true' or 'false'" }).default('false'),
  MODEL_PROVIDER: z.enum(['auto', 'openai', 'offline'], { error: "must be 'auto', 'openai' or 'offline'" }).default('auto'),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:11434/v1' }).optional()),
  OPENAI_MODEL: optionalText,
  MODEL_TIMEOUT_MS: integer(1000, 600_000).default(60_000),
  MODEL_MAX_RETRIES: integer(0, 10).default(2),
  // Absent: the agent's generous default (src/agent/constants.ts, 128,000).
  MODEL_CONTEXT_TOKENS: integer(2_048, 10_000_000).optional(),
  CHAT_DEADLINE_MS: integer(1000, 3_600_000).default(180_000),
  ANSWER_CHECK: z.enum(['repair', 'flag', 'off'], { error: "must be 'repair', 'flag' or 'off'" }).default('repair'),
  QUERY_WORKERS: integer(1, 64).default(2),
  QUERY_TIMEOUT_MS: integer(100, 3_600_000).default(30_000),
  QUERY_QUEUE_MAX: integer(0, 10_000).default(32),
  QUERY_QUEUE_WAIT_MS: integer(100, 3_600_000).default(10_000),
  // Empty is unset, as for the other optional settings.
  DUCKDB_MEMORY_LIMIT: z.preprocess((value) => (value === '' ? undefined : value), memorySize.default(DEFAULT_DUCKDB_MEMORY_LIMIT)),
  /** A SQLite file, or postgres://… to share conversations between several instances. */
  APP_DB: z.string({ error: 'must be a file path or a postgres:// URL' }).min(1, { error: 'must be a file path or a postgres:// URL' }).default(path.join(projectRoot, 'data/app.db')),
  SESSION_TTL_HOURS: integer(0, 87_600).default(168),
  SESSION_MAX_TURNS: integer(1, 100_000).default(200),
  /** With APP_DB=postgres://…: how long a dead instance's hold on a session blocks it. */
  SESSION_LEASE_SECONDS: integer(1, 3_600).default(30),
  ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((host) => host.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^(\*|\[[0-9a-f:.]+\]|[a-z0-9_.-]{1,253})$/, { error: "each entry must be a host name or IP address without port (e.g. analyst.example.com, 10.0.0.5, [::1]), or '*'" }))),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.literal('*'), z.url({ protocol: /^https?$/, error: "each origin must be an http(s) origin such as https://dashboards.example.com, or '*'" })]))),
  API_KEYS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((key) => key.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(API_KEY_PATTERN, { error: 'each key must be 16 to 200 visible ASCII characters (no spaces or commas)' }))),
  /** A YAML or JSON file of named API keys with data scopes (src/config/keysFile.ts). */
  API_KEYS_FILE: optionalText,
  RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).default(120),
  /** Where notifications are POSTed (src/notifications/), and the secret that signs them. */
  NOTIFY_WEBHOOK_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://hooks.example.com/analyst' }).optional()),
  NOTIFY_WEBHOOK_SECRET: optionalText.pipe(z.string().min(16, { error: 'must be at least 16 characters' }).max(1_000, { error: 'must be at most 1,000 characters' }).optional()),
  LOG_LEVEL: z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty', 'auto'], { error: "must be 'json', 'pretty' or 'auto'" }).default('auto'),
});

/** APP_DB values that name a PostgreSQL server rather than a SQLite file. */
const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** Variables whose values must never appear in a message. */
// A webhook URL counts: chat webhooks (Slack's) carry their token in the path.
const secretVariables = new Set(['API_KEYS', 'OPENAI_API_KEY', 'DATA_URL', 'NOTIFY_WEBHOOK_URL', 'NOTIFY_WEBHOOK_SECRET']);

export type AnswerCheckMode = 'repair' | 'flag' | 'off';

export interface ServiceConfig {
  port: number;
  host: string;
  /** The default connection (DATA_URL, or sqlite:DATA_DB); may hold a password: never log it. */
  dataUrl: string;
  /** The default connection's file (SQLite or DuckDB), undefined for PostgreSQL. */
  dataDatabasePath: string | undefined;
  /** The environment the configuration was read from: the catalog's `${VARIABLE}`s come from it. */
  environment: NodeJS.ProcessEnv;
  catalogPath: string;
  skillsDirectory: string;
  /** Skills not to load (SKILLS_DISABLED); each must name a skill folder. */
  skillsDisabled: string[];
  /** Watch SKILLS_DIR and reload the skills on change (SKILLS_RELOAD, for development). */
  skillsReload: boolean;
  model:
    | { provider: 'offline' }
    | {
        provider: 'openai';
        apiKey: string | undefined;
        baseUrl: string | undefined;
        modelName: string;
        timeoutMs: number;
        maxRetries: number;
        /** The model's context window in tokens (MODEL_CONTEXT_TOKENS); undefined: the agent's default, 128,000. */
        contextTokens?: number | undefined;
      };
  /** Overall time a question may take, model retries included. */
  chatDeadlineMs: number;
  /**
   * Figures of an answer no tool result backs (ANSWER_CHECK): `repair` gives the model one turn
   * to correct them, then flags what is left; `flag` only flags; `off` lists no figures.
   */
  answerCheck: AnswerCheckMode;
  /** Query worker processes, and the most one query may run before it is killed. */
  queryWorkers: number;
  queryTimeoutMs: number;
  /** Queries that may wait for a worker, and how long; past either the tool answers `busy`. */
  queryQueueMax: number;
  queryQueueWaitMs: number;
  /** DuckDB's memory_limit for connections whose catalog entry sets none (DUCKDB_MEMORY_LIMIT). */
  duckdbMemoryLimit: string;
  /** The application database (conversations), and how long an idle session is kept (0: forever). */
  appDatabasePath: string | undefined;
  /**
   * APP_DB as a postgres:// URL (conversations shared by several instances; `appDatabasePath`
   * is then undefined), undefined for a SQLite file. Holds a password: never log it.
   */
  appDatabaseUrl: string | undefined;
  sessionTtlHours: number;
  /** With a PostgreSQL APP_DB: seconds a session's lease lasts without renewal (SESSION_LEASE_SECONDS). */
  sessionLeaseSeconds: number;
  /** Turns one conversation may hold (SESSION_MAX_TURNS); then /chat asks for a new one (409). */
  sessionMaxTurns: number;
  /** Host names requests may be addressed to (ALLOWED_HOSTS); empty: this machine's own (see http/security/hostCheck.ts); ['*']: any. */
  allowedHosts: string[];
  /** Browser origins (dashboards) allowed to call the API; '*' allows any. Empty: same origin only. */
  corsOrigins: string[];
  /** API keys (API_KEYS); empty: no authentication. Never log these. */
  apiKeys: string[];
  /** Named keys with data scopes, from API_KEYS_FILE (their scopes are checked against the catalog at startup). */
  declaredKeys: DeclaredKey[];
  /** Requests a minute per API key (or client IP) (RATE_LIMIT_PER_MINUTE); 0: no limit. */
  rateLimitPerMinute: number;
  /** Where outbound notifications go (NOTIFY_WEBHOOK_URL, NOTIFY_WEBHOOK_SECRET); none: not sent. Never log these. */
  notifications: { webhooks: { url: string; secret: string }[] };
  logLevel: (typeof logLevels)[number];
  logFormat: 'json' | 'pretty' | 'auto';
}

/**
 * Validates the environment and returns the configuration.
 * @throws ConfigurationError naming every invalid variable.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      // Secrets are never echoed back, not even in a startup error.
      // The model URL may carry credentials or a token: it is shown without them.
      const raw = secretVariables.has(name) ? undefined : environment[name];
      const got = (name === 'OPENAI_BASE_URL' || (name === 'APP_DB' && POSTGRES_URL.test(raw ?? ''))) && raw !== undefined ? safeUrl(raw) : raw;
      return `  ${name}: ${issue.message}${got !== undefined ? ` (got '${got}')` : ''}`;
    });
    throw new ConfigurationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const wantsOpenAI =
    env.MODEL_PROVIDER === 'openai' || (env.MODEL_PROVIDER === 'auto' && (env.OPENAI_BASE_URL !== undefined || env.OPENAI_API_KEY !== undefined));
  if (env.MODEL_PROVIDER === 'openai' && !env.OPENAI_BASE_URL && !env.OPENAI_API_KEY) {
    throw new ConfigurationError(
      'Invalid configuration:\n  MODEL_PROVIDER: is \'openai\' but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set',
    );
  }
  const resolve = (file: string) => path.resolve(file);
  if (env.DATA_URL !== undefined && environment.DATA_DB !== undefined) {
    throw new ConfigurationError('Invalid configuration:\n  DATA_URL: set either DATA_URL or DATA_DB (a SQLite file), not both');
  }
  // The default connection: DATA_URL, or DATA_DB as a SQLite file. A file of it is watched by the query pool.
  const dataUrl = env.DATA_URL === undefined ? `sqlite:${resolve(env.DATA_DB)}` : withAbsoluteFile(env.DATA_URL);
  const dataFile = /^(sqlite|duckdb):./i.test(dataUrl) ? dataUrl.replace(/^(sqlite|duckdb):/i, '') : undefined;
  const appDatabaseUrl = POSTGRES_URL.test(env.APP_DB) ? env.APP_DB : undefined;
  checkConnectionUrl('DATA_URL', POSTGRES_URL.test(dataUrl) ? dataUrl : undefined);
  checkConnectionUrl('APP_DB', appDatabaseUrl);
  if (dataFile !== undefined && appDatabaseUrl === undefined && resolve(env.APP_DB) === dataFile) {
    throw new ConfigurationError('Invalid configuration:\n  APP_DB: must not be the data database (DATA_DB), which is opened read-only');
  }
  return {
    port: env.PORT,
    host: env.HOST,
    dataUrl,
    dataDatabasePath: dataFile,
    environment,
    catalogPath: resolve(env.CATALOG),
    skillsDirectory: resolve(env.SKILLS_DIR),
    skillsDisabled: env.SKILLS_DISABLED,
    skillsReload: env.SKILLS_RELOAD === 'true' || env.SKILLS_RELOAD === '1',
    model: wantsOpenAI
      ? {
          provider: 'openai',
          apiKey: env.OPENAI_API_KEY,
          baseUrl: env.OPENAI_BASE_URL,
          // A local server usually serves whatever model is loaded; OpenAI needs a real name.
          modelName: env.OPENAI_MODEL ?? 'gpt-4o-mini',
          timeoutMs: env.MODEL_TIMEOUT_MS,
          maxRetries: env.MODEL_MAX_RETRIES,
          contextTokens: env.MODEL_CONTEXT_TOKENS,
        }
      : { provider: 'offline' },
    chatDeadlineMs: env.CHAT_DEADLINE_MS,
    answerCheck: env.ANSWER_CHECK,
    queryWorkers: env.QUERY_WORKERS,
    queryTimeoutMs: env.QUERY_TIMEOUT_MS,
    queryQueueMax: env.QUERY_QUEUE_MAX,
    queryQueueWaitMs: env.QUERY_QUEUE_WAIT_MS,
    duckdbMemoryLimit: env.DUCKDB_MEMORY_LIMIT,
    appDatabasePath: appDatabaseUrl === undefined ? resolve(env.APP_DB) : undefined,
    appDatabaseUrl,
    sessionTtlHours: env.SESSION_TTL_HOURS,
    sessionLeaseSeconds: env.SESSION_LEASE_SECONDS,
    sessionMaxTurns: env.SESSION_MAX_TURNS,
    allowedHosts: env.ALLOWED_HOSTS,
    corsOrigins: env.CORS_ORIGINS.map((origin) => (origin === '*' ? origin : new URL(origin).origin)),
    apiKeys: [...new Set(env.API_KEYS)],
    declaredKeys: env.API_KEYS_FILE === undefined ? [] : readKeysFile(resolve(env.API_KEYS_FILE), environment),
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    notifications: { webhooks: notificationWebhooks(env.NOTIFY_WEBHOOK_URL, env.NOTIFY_WEBHOOK_SECRET) },
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
  };
}

/**
 * The webhook notifications go to, or none. Neither value ever appears in a message.
 * @throws ConfigurationError when one is set without the other, or the URL holds a user name or password.
 * @example
 * notificationWebhooks('https://hooks.example.com/analyst', 'a-secret-of-16-chars') // [{ url, secret }]
 */
function notificationWebhooks(url: string | undefined, secret: string | undefined): { url: string; secret: string }[] {
  const fail = (line: string): never => {
    throw new ConfigurationError(`Invalid configuration:\n  ${line}`);
  };
  if (url === undefined) return secret === undefined ? [] : fail('NOTIFY_WEBHOOK_SECRET: is set but NOTIFY_WEBHOOK_URL is not; set the URL notifications go to, or unset the secret');
  if (secret === undefined) return fail("NOTIFY_WEBHOOK_SECRET: is required when NOTIFY_WEBHOOK_URL is set: at least 16 characters, with which receivers check each message's signature");
  // fetch refuses a URL with credentials: every delivery would fail.
  const parsed = new URL(url);
  if (parsed.username || parsed.password) fail('NOTIFY_WEBHOOK_URL: must not hold a user name or password; put a token in its path or query instead');
  return [{ url, secret }];
}

/** sqlite:FILE and duckdb:FILE with the file made absolute; other URLs as they are. */
function withAbsoluteFile(url: string): string {
  const match = /^(sqlite|duckdb):(.+)$/i.exec(url);
  return match ? `${match[1]!.toLowerCase()}:${path.resolve(match[2]!)}` : url;
}

/**
 * Stops startup on a postgres:// URL the driver would refuse on every connection: one that does
 * not parse, or whose user name, password or database holds a malformed percent-escape (the
 * driver's "URI malformed", which would otherwise fail each query of a service that started
 * "healthy"). The message names the variable and the part, never the password.
 * @throws ConfigurationError
 * @example
 * checkConnectionUrl('APP_DB', 'postgres://u:p%zz@db/app'); // throws: "APP_DB: the password has a malformed percent-escape …"
 */
function checkConnectionUrl(variable: string, url: string | undefined): void {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not shown at all: where the password ends in a URL that does not parse is anyone's guess.
    throw new ConfigurationError(`Invalid configuration:\n  ${variable}: is not a valid URL; write it as postgres://user:password@host:5432/database (percent-encode special characters in the password)`);
  }
  const fail = (problem: string) => {
    throw new ConfigurationError(`Invalid configuration:\n  ${variable}: ${problem} (got '${safeUrl(url)}')`);
  };
  const parts = [
    ['user name', parsed.username],
    ['password', parsed.password],
    ['database name', parsed.pathname.slice(1)],
  ] as const;
  for (const [part, value] of parts) {
    try {
      decodeURIComponent(value);
    } catch {
      fail(`the ${part} has a malformed percent-escape: each '%' must start an escape of two hexadecimal digits that form UTF-8, such as %40 for '@'; write a '%' itself as %25`);
    }
  }
}
