/**
 * A bounded corpus of inputs built to make parsers and regexes backtrack: long runs of blanks
 * between the pieces a pattern looks for, repeated keywords, unclosed markers, 64 KB strings.
 * Shared by the in-process timing test and the attack suite against a real server.
 */

/** Size of the long inputs: what fits in one 64 KB request body with the JSON around it. */
export const LONG = 65_000;

const spaces = (n: number) => ' '.repeat(n);

/** Named adversarial strings, each about LONG characters. */
export const adversarialStrings: Record<string, string> = {
  'period, spaces, junk': `2024${spaces(LONG)}x`,
  'quarter, spaces, junk': `2024${spaces(LONG)}q5`,
  'q + spaces': `q4${spaces(LONG)}x`,
  'month + spaces': `december${spaces(LONG)}x`,
  'p + spaces': `p12${spaces(LONG)}x`,
  'tabs and newlines': `2024${'\t\n '.repeat(LONG / 3)}x`,
  'repeated keyword': 'period '.repeat(LONG / 7),
  'repeated quarter': 'Q4 2024 '.repeat(LONG / 8),
  'one long word': 'a'.repeat(LONG),
  'joined words, no end': `${'a-'.repeat(LONG / 2)}`,
  'heading, blanks': `# a${spaces(LONG)}x`,
  'closing hashes': `# title${spaces(LONG)}#x`,
  'unclosed bold': '**'.repeat(LONG / 2),
  'urls': 'http://'.repeat(LONG / 7),
  'url with secrets': `http://user:secret@host/${'a'.repeat(LONG)}?token=abc`,
  'import + spaces': `import ${spaces(LONG)}`,
  'order by': `-${spaces(LONG)}a${spaces(LONG / 2)}x`,
  'bearer': `Bearer ${spaces(LONG / 2)}x${spaces(LONG / 2)}y`,
  'json-ish': `{"source":"${'\\'.repeat(LONG)}`,
  'control characters': '\u0001\u0002'.repeat(LONG / 2),
};

/** A value at most `max` characters that still has the shape of an attack (blanks between pieces). */
export function atLimit(max: number): string[] {
  return [`2024${spaces(max - 5)}x`, `q4${spaces(max - 3)}x`, 'period '.repeat(Math.floor(max / 7)), 'a'.repeat(max)];
}

/** p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
