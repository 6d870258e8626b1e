/**
 * Secrets out of what the service shows: model endpoint URLs without user name, password,
 * query string or fragment (where tokens ride along), in logs, error messages and problems;
 * and file paths cut to their file names in public messages (GET /health, problems).
 */

/** Characters a URL in free text runs over (it ends at a blank, a quote or an angle bracket). */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s'"<>`]+/gi;

/**
 * A URL safe to show: scheme, host, port and path only.
 * @example
 * safeUrl('http://user:secret@llm.internal:8000/v1?api_key=abc'); // 'http://llm.internal:8000/v1'
 */
export function safeUrl(url: string): string {
  // Only a URL with an authority ("scheme://host") has a host to keep; anything else is cut by hand.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return cutSecrets(url);
  try {
    const parsed = new URL(url);
    // "http://host:3000" stays as written, without a slash the URL parser would add.
    const path = parsed.pathname === '/' && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(url) ? '' : parsed.pathname;
    return `${parsed.protocol}//${parsed.host}${path}`;
  } catch {
    return cutSecrets(url);
  }
}

/** What could be secret in a URL that does not parse: user info, query string, fragment. */
function cutSecrets(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@?#]*@/i, '$1').split(/[?#]/)[0]!;
}

/**
 * Text with every http(s) URL in it made safe ({@link safeUrl}); linear in the text.
 * @example
 * redactUrls('Request cannot be constructed from a URL that includes credentials: http://u:p@h/v1?t=1');
 * // 'Request cannot be constructed from a URL that includes credentials: http://h/v1'
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (url) => safeUrl(url));
}

/**
 * A copy of a JSON-like value with {@link redactUrls} applied to every string in it, for error
 * objects about to be logged. Depth and size are bounded; deeper parts are left out.
 * @example
 * redactValue({ message: 'fetch http://u:p@h/v1 failed', nested: { url: 'http://h/?key=1' } });
 * // { message: 'fetch http://h/v1 failed', nested: { url: 'http://h/' } }
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUrls(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 8) return '[nested too deep]';
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redactValue(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value).slice(0, 100)) copy[key] = redactValue(item, depth + 1);
  return copy;
}

/**
 * Text with a connection URL that may hold a password (and that password, however encoded)
 * replaced by the URL's safe form; for driver errors, which may quote the connection string.
 * @example
 * redactConnectionUrl('connect failed: postgres://u:pw@h/db', 'postgres://u:pw@h/db'); // 'connect failed: postgres://h/db'
 */
export function redactConnectionUrl(text: string, url: string): string {
  let safe = text.split(url).join(safeUrl(url));
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    // not a URL with an authority: nothing more to hide
  }
  if (password) for (const form of new Set([password, decodedOrSelf(password)])) safe = safe.split(form).join('***');
  return safe;
}

/** A percent-encoded part decoded, or as it is when its escapes are malformed (redacting must never throw). */
function decodedOrSelf(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** An absolute POSIX path with at least one folder (not the `//host/…` of a URL), or a Windows one. */
const ABSOLUTE_PATH = /(?<![\w./~-])\/(?!\/)(?:[^\s/'"`<>()\[\]{},;]+\/)+([^\s/'"`<>()\[\]{},;]+)|\b[A-Za-z]:\\(?:[^\s\\'"`<>]+\\)+([^\s\\'"`<>]+)/g;

/**
 * Text with every absolute file path in it cut to the file's name, for messages anyone may read
 * (a driver's "ENOENT: no such file or directory, open '/etc/ssl/private/ca.pem'"); logs keep paths.
 * @example
 * withoutFolders("open '/srv/analyst/tls/ca.pem' failed"); // "open 'ca.pem' failed"
 * withoutFolders('postgres://db:5432/finance'); // unchanged
 */
export function withoutFolders(text: string): string {
  if (!text.includes('/') && !text.includes('\\')) return text;
  return text.replace(ABSOLUTE_PATH, (_path, posix: string | undefined, windows: string | undefined) => posix ?? windows ?? '');
}
