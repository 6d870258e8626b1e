/**
 * TLS to PostgreSQL as libpq users write it, for every `postgres://…` the service opens (the data
 * engine, the session store, data:load): `sslmode=disable|prefer|require|verify-ca|verify-full` with
 * `sslrootcert`, `sslcert`, `sslkey` in the URL, and libpq's default `prefer` (TLS when the server
 * offers it, plain when it does not) for a URL that names no mode, so a URL that works with psql
 * works here. node-postgres (pg-connection-string 2.x) reads `prefer`, `require` and `verify-ca`
 * as `verify-full` unless the URL also says `uselibpqcompat=true`, so `sslmode=require` refused
 * any server with a private-CA certificate; `withLibpqTls` adds that flag. node-postgres' `prefer`
 * never falls back to plain text: `connectLibpq` does. A refused certificate reads as a TLS
 * problem, not as OpenSSL's bare "unable to verify the first certificate", and a TLS file that
 * cannot be read by its file name, never its path.
 */
import path from 'node:path';
import pg from 'pg';
import { withoutFolders } from './redact.ts';

/** The libpq modes pg-connection-string maps with libpq's meaning once `uselibpqcompat=true` is set. */
const LIBPQ_MODES = new Set(['disable', 'prefer', 'require', 'verify-ca', 'verify-full']);
/** node-postgres' message when the server answers a TLS request with no. */
const NO_TLS = 'The server does not support SSL connections';
/** Node's error codes for a certificate it refused (OpenSSL's verify codes, and the host name check). */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|^UNABLE_TO_|^ERR_TLS_|^ERR_SSL_/;

/**
 * The URL to give node-postgres so that its `sslmode` means what it means to libpq: `prefer`
 * (also for a URL without `sslmode`, libpq's default, or `PGSSLMODE` when set) tries TLS without
 * checking the certificate, `require` encrypts without checking it (or checks the chain only, like
 * `verify-ca`, when `sslrootcert` is given), `verify-ca` checks the chain, `verify-full` the chain
 * and the host name. URLs with node-postgres' own `sslmode=no-verify`, or that set
 * `uselibpqcompat` themselves, are returned as they are.
 * @example
 * withLibpqTls('postgres://u:p@db:5432/fi?sslmode=require'); // 'postgres://u:p@db:5432/fi?sslmode=require&uselibpqcompat=true'
 * withLibpqTls('postgres://u:p@db:5432/fi'); // 'postgres://u:p@db:5432/fi?sslmode=prefer&uselibpqcompat=true'
 */
export function withLibpqTls(url: string): string {
  const query = parametersOf(url);
  if (query === undefined || query.has('uselibpqcompat')) return url;
  const mode = query.get('sslmode');
  if (mode !== null && !LIBPQ_MODES.has(mode)) return url;
  const defaultMode = process.env.PGSSLMODE && LIBPQ_MODES.has(process.env.PGSSLMODE) ? process.env.PGSSLMODE : 'prefer';
  return withParameters(url, `${mode === null ? `sslmode=${defaultMode}&` : ''}uselibpqcompat=true`);
}

/**
 * Connects a node-postgres client as libpq would: with `prefer` (stated or by default), a server
 * that offers no TLS is connected to in plain text instead of failing. Returns the connected
 * client and the connection string that worked (with withLibpqTls applied), for the connections
 * opened after it.
 * @throws Error whose message is connectionFailureMessage's (never the URL).
 * @example
 * const { client, connectionString } = await connectLibpq({ connectionString: url, application_name: 'data:load' });
 */
export async function connectLibpq(options: pg.ClientConfig & { connectionString: string }): Promise<{ client: pg.Client; connectionString: string }> {
  const config = { ...options, connectionString: withLibpqTls(options.connectionString) };
  const attempt = async (connectionString: string) => {
    const client = new pg.Client({ ...config, connectionString });
    await client.connect();
    return { client, connectionString };
  };
  try {
    return await attempt(config.connectionString);
  } catch (error) {
    const plain = (error as Error | undefined)?.message === NO_TLS && preferred(config.connectionString) ? plainFallback(config.connectionString) : undefined;
    if (plain) return attempt(plain).catch((second: unknown) => Promise.reject(new Error(connectionFailureMessage(second))));
    throw new Error(connectionFailureMessage(error));
  }
}

function preferred(connectionString: string): boolean {
  return parametersOf(connectionString)?.get('sslmode') === 'prefer';
}

/**
 * A URL's query parameters, read as pg-connection-string reads them: `postgres://u:p@/db?host=…`
 * (no host before the path, e.g. a Unix socket in `host`) is read with a placeholder host.
 */
function parametersOf(url: string): URLSearchParams | undefined {
  for (const candidate of [url, url.replace('@/', '@___DUMMY___/')]) {
    try {
      return new URL(candidate, 'postgres://base').searchParams;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** The same URL with `sslmode=disable` in place of `prefer`. */
function plainFallback(connectionString: string): string {
  return connectionString.replace(/([?&])sslmode=prefer(?=&|#|$)/, '$1sslmode=disable');
}

function withParameters(url: string, parameters: string): string {
  const [beforeFragment, fragment] = url.split(/#(.*)/s);
  return `${beforeFragment}${beforeFragment!.includes('?') ? '&' : '?'}${parameters}${fragment === undefined ? '' : `#${fragment}`}`;
}

/**
 * The message of a failed connection, saying that TLS failed when it did (the reason stays, it
 * names the certificate problem; it never holds the URL or its password).
 * @example
 * connectionFailureMessage(Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }));
 * // "TLS failed: the server's certificate was not accepted (unable to verify the first certificate); sslrootcert must name the CA that signed it"
 */
export function connectionFailureMessage(error: unknown): string {
  const message = withoutFolders(error instanceof Error ? error.message : String(error));
  const code = (error as { code?: unknown } | undefined)?.code;
  // A TLS file of the URL that cannot be read: its name only, never where it sits (the message may reach GET /health).
  const file = (error as { syscall?: unknown; path?: unknown } | undefined)?.path;
  if (typeof file === 'string' && typeof (error as { syscall?: unknown }).syscall === 'string') {
    return `TLS failed: cannot read ${path.basename(file)}, named by sslrootcert, sslcert or sslkey in the URL (${String(code ?? message)})`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS failed: the server's certificate is not for the host name in the URL (${message}); sslmode=verify-full checks it`;
  if (typeof code === 'string' && CERTIFICATE_CODE.test(code)) return `TLS failed: the server's certificate was not accepted (${message}); sslrootcert must name the CA that signed it`;
  if (message === NO_TLS) return 'TLS failed: the server does not accept TLS connections; sslmode=disable connects without TLS';
  return message || String(code ?? error);
}
