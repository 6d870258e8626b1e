/**
 * TLS to PostgreSQL as libpq users write it, for every `postgres://…` the service opens (the data
 * engine, the session store, data:load): `sslmode=disable|prefer|require|verify-ca|verify-full` with
 * `sslrootcert`, `sslcert`, `sslkey` in the URL. node-postgres (pg-connection-string 2.x) reads
 * `prefer`, `require` and `verify-ca` as `verify-full` unless the URL also says
 * `uselibpqcompat=true`, so `sslmode=require` refused any server with a private-CA certificate;
 * `withLibpqTls` adds that flag. A refused certificate then reads as a TLS problem, not as
 * OpenSSL's bare "unable to verify the first certificate".
 */

/** The libpq modes pg-connection-string maps with libpq's meaning once `uselibpqcompat=true` is set. */
const LIBPQ_MODES = new Set(['disable', 'prefer', 'require', 'verify-ca', 'verify-full']);
/** Node's error codes for a certificate it refused (OpenSSL's verify codes, and the host name check). */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|^UNABLE_TO_|^ERR_TLS_|^ERR_SSL_/;

/**
 * The URL to give node-postgres so that its `sslmode` means what it means to libpq: `require`
 * encrypts without checking the certificate (or checks the chain only, like `verify-ca`, when
 * `sslrootcert` is given), `verify-ca` checks the chain, `verify-full` the chain and the host name.
 * URLs without a libpq `sslmode`, or that set `uselibpqcompat` themselves, are returned as they are.
 * @example
 * withLibpqTls('postgres://u:p@db:5432/fi?sslmode=require'); // 'postgres://u:p@db:5432/fi?sslmode=require&uselibpqcompat=true'
 */
export function withLibpqTls(url: string): string {
  let query: URLSearchParams;
  try {
    // The same base as pg-connection-string's own parse.
    query = new URL(url, 'postgres://base').searchParams;
  } catch {
    return url;
  }
  const mode = query.get('sslmode');
  if (mode === null || !LIBPQ_MODES.has(mode) || query.has('uselibpqcompat')) return url;
  const [beforeFragment, fragment] = url.split(/#(.*)/s);
  return `${beforeFragment}${beforeFragment!.includes('?') ? '&' : '?'}uselibpqcompat=true${fragment === undefined ? '' : `#${fragment}`}`;
}

/**
 * The message of a failed connection, saying that TLS failed when it did (the reason stays, it
 * names the certificate problem; it never holds the URL or its password).
 * @example
 * connectionFailureMessage(Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }));
 * // "TLS failed: the server's certificate was not accepted (unable to verify the first certificate); sslrootcert must name the CA that signed it"
 */
export function connectionFailureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS failed: the server's certificate is not for the host name in the URL (${message}); sslmode=verify-full checks it`;
  if (typeof code === 'string' && CERTIFICATE_CODE.test(code)) return `TLS failed: the server's certificate was not accepted (${message}); sslrootcert must name the CA that signed it`;
  if (message === 'The server does not support SSL connections') return 'TLS failed: the server does not accept TLS connections; sslmode=disable connects without TLS';
  return message || String(code ?? error);
}
