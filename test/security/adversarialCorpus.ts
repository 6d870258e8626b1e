/**
 * A bounded corpus of inputs built to make parsers and regexes backtrack: long runs of blanks
 * between the pieces a pattern looks for, repeated keywords, unclosed markers, 64 KB strings.
 * Shared by the in-process tests, the attack suite against a real server and the latency
 * benchmark (bench/latency.ts).
 */

/** Size of the long inputs: what fits in one 64 KB request body with the JSON around it. */
export const LONG = 65_000;

const spaces = (n: number) => ' '.repeat(n);

/**
 * Named adversarial strings, each about `length` characters.
 * @example
 * adversarialCorpus(650_000); // ten times what a request can carry, for a hang guard
 */
export function adversarialCorpus(length = LONG): Record<string, string> {
  return {
    'period, spaces, junk': `2024${spaces(length)}x`,
    'quarter, spaces, junk': `2024${spaces(length)}q5`,
    'q + spaces': `q4${spaces(length)}x`,
    'month + spaces': `december${spaces(length)}x`,
    'p + spaces': `p12${spaces(length)}x`,
    'tabs and newlines': `2024${'\t\n '.repeat(length / 3)}x`,
    'repeated keyword': 'period '.repeat(length / 7),
    'repeated quarter': 'Q4 2024 '.repeat(length / 8),
    'one long word': 'a'.repeat(length),
    'joined words, no end': `${'a-'.repeat(length / 2)}`,
    'heading, blanks': `# a${spaces(length)}x`,
    'closing hashes': `# title${spaces(length)}#x`,
    'unclosed bold': '**'.repeat(length / 2),
    'urls': 'http://'.repeat(length / 7),
    'url with secrets': `http://user:secret@host/${'a'.repeat(length)}?token=abc`,
    'import + spaces': `import ${spaces(length)}`,
    'order by': `-${spaces(length)}a${spaces(length / 2)}x`,
    'bearer': `Bearer ${spaces(length / 2)}x${spaces(length / 2)}y`,
    'json-ish': `{"source":"${'\\'.repeat(length)}`,
    'control characters': '\u0001\u0002'.repeat(length / 2),
  };
}

/** Named adversarial strings, each about LONG characters. */
export const adversarialStrings: Record<string, string> = adversarialCorpus(LONG);

/** A value at most `max` characters that still has the shape of an attack (blanks between pieces). */
export function atLimit(max: number): string[] {
  return [`2024${spaces(max - 5)}x`, `q4${spaces(max - 3)}x`, 'period '.repeat(Math.floor(max / 7)), 'a'.repeat(max)];
}

/** p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
