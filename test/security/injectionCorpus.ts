/**
 * Hostile inputs for the security tests: SQL injection, SQLite-specific escapes (ATTACH,
 * PRAGMA, load_extension), comment and quoting tricks, unicode look-alikes, control bytes,
 * template and JSON look-alikes, LIKE wildcards, oversized strings, and values of the wrong
 * JSON type where a string is expected.
 */

/** Files an ATTACH payload would create if it ever ran; the tests check none of them appears. */
export const ATTACH_TARGETS = ['/tmp/x.db', '/tmp/analyst-injection-pwned.db', '/tmp/analyst-injection-pwned2.db'] as const;

export const HOSTILE_STRINGS: readonly string[] = [
  // Classic quoting breaks.
  "' OR 1=1 --",
  "' OR '1'='1",
  '" OR "1"="1',
  "1000' OR 'a'='a",
  "') OR ('1'='1",
  "1000'--",
  "admin'/*",
  // Stacked statements: writes, DDL, ATTACH, PRAGMA.
  '"; DROP TABLE fi_reporting; --',
  "'; DROP TABLE fi_reporting; --",
  "1; DELETE FROM fi_reporting; --",
  "x'); INSERT INTO fi_reporting (compcode) VALUES ('pwned'); --",
  "'; UPDATE fi_reporting SET cs_trn_lc = 0; --",
  "1); ATTACH DATABASE '/tmp/x.db' AS x; --",
  "'; ATTACH DATABASE '/tmp/analyst-injection-pwned.db' AS p; CREATE TABLE p.t(a); --",
  "\"]; ATTACH '/tmp/analyst-injection-pwned2.db' AS q; --",
  'PRAGMA query_only=0',
  "'; PRAGMA query_only=0; PRAGMA journal_mode=WAL; --",
  "'; VACUUM INTO '/tmp/x.db'; --",
  "'; SELECT load_extension('/tmp/evil.so'); --",
  "fi_reporting; DROP TABLE fi_reporting",
  'fi_reporting"; DROP TABLE "fi_reporting',
  'compcode" FROM fi_reporting; DROP TABLE fi_reporting; --',
  '[compcode]); DROP TABLE fi_reporting; --',
  '`compcode`; DELETE FROM fi_reporting',
  // UNION and subqueries.
  "' UNION SELECT name, sql, 1, 1 FROM sqlite_master --",
  "1000' UNION ALL SELECT sqlite_version(), 1 --",
  'amount) FROM fi_reporting UNION SELECT sql FROM sqlite_schema --',
  "(SELECT group_concat(sql) FROM sqlite_master)",
  "amount desc; DROP TABLE fi_reporting",
  'amount desc, (SELECT 1)',
  'CASE WHEN (SELECT count(*) FROM sqlite_master) > 0 THEN 1 ELSE 0 END',
  // Comment tricks.
  "1000'/**/OR/**/1=1--",
  '1000 -- comment',
  '/* */ company',
  "1000'#",
  // Unicode quotes and look-alikes, right-to-left override, zero-width characters.
  '1000\u2019 OR \u20181\u2019=\u20181',
  '\uff07 OR 1=1 --',
  'comp\u200bany',
  '\u202e1000',
  'Ｃompany',
  '💣\'; DROP TABLE fi_reporting; --',
  // Control bytes, NUL, backslashes, newlines.
  '1000\u0000\'; DROP TABLE fi_reporting; --',
  '\u0000',
  '\\',
  "\\'; DROP TABLE fi_reporting; --",
  '1000\r\n; DELETE FROM fi_reporting',
  '\t\n\v\f',
  // Template, format and JSON look-alikes.
  '${process.exit(1)}',
  '{{7*7}}',
  '%s%s%s%n',
  '{"from":"2024001","to":"2024012"}',
  '["1000","2000"]',
  '{"$ne":null}',
  '__proto__',
  'constructor',
  // LIKE wildcards and globbing.
  '%',
  '_',
  '1%',
  '*',
  '?',
  // Numbers and keywords as strings.
  '1000',
  '-1',
  '0x41',
  '1e309',
  'NaN',
  'null',
  'NULL',
  'true',
  // Empty-ish and very long.
  '',
  ' ',
  "'".repeat(2_000),
  'A'.repeat(20_000),
  "' OR 1=1 -- ".repeat(1_000),
];

/** Values of the wrong JSON type where the tools expect a string (or a string list). */
export const HOSTILE_VALUES: readonly unknown[] = [
  { $ne: null },
  { sql: 'DROP TABLE fi_reporting' },
  { toString: "'; DROP TABLE fi_reporting; --" },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  ['1000', { $gt: '' }],
  [["'; DROP TABLE fi_reporting; --"]],
  [],
  12345,
  -1,
  1e308,
  true,
  null,
];
