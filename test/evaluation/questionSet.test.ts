/**
 * The question-file format (src/evaluation/questionSet.ts) as a company writing its own file
 * meets it: YAML or JSON, optional fields filled in, and every mistake in a file reported at
 * once, each with its line, its question and what to write instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadQuestionSet, parseQuestionSet, projectQuestionFile, QuestionFileError } from '../../src/evaluation/questionSet.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'question-set-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The message of the QuestionFileError that parsing `content` raises. */
function problemsOf(content: string): string {
  try {
    parseQuestionSet(content, 'mine.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(QuestionFileError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('question files', () => {
  it('reads YAML, with tags and followUp optional', () => {
    const questions = parseQuestionSet(
      `- id: total
  question: FI total for 1000 in December 2024
  expect: { kind: answer, figures: ['443,100.00'] }
- id: and-for-2000
  question: and for 2000?
  followUp: true
  expect: { kind: answer, figures: ['191,720.58'] }
  tags: [follow-up]
- id: vague
  question: what was the number?
  expect: { kind: clarify, reason: no figure named }
- id: cash
  question: cash balance?
  expect: { kind: decline, reason: not in the catalog }
- id: signs
  question: are expenses negative?
  expect: { kind: knowledge, cites: skills/data_analyst/knowledge/accounts.md }
`,
      'mine.yaml',
    );
    expect(questions.map((question) => [question.id, question.followUp ?? false, question.expect.kind, question.tags])).toEqual([
      ['total', false, 'answer', []],
      ['and-for-2000', true, 'answer', ['follow-up']],
      ['vague', false, 'clarify', []],
      ['cash', false, 'decline', []],
      ['signs', false, 'knowledge', []],
    ]);
  });

  it('reads JSON in the same format', () => {
    const file = path.join(directory, 'mine.json');
    writeFileSync(file, JSON.stringify([{ id: 'total', question: 'FI total for 1000 in December 2024', expect: { kind: 'answer', figures: ['443,100.00'] } }]));
    expect(loadQuestionSet(file)).toEqual([{ id: 'total', question: 'FI total for 1000 in December 2024', expect: { kind: 'answer', figures: ['443,100.00'] }, tags: [] }]);
  });

  it("loads the project's own set", () => {
    const questions = loadQuestionSet(projectQuestionFile);
    expect(questions.length).toBeGreaterThanOrEqual(150);
    expect(questions[0]).toMatchObject({ id: 'fi-de-dec-result-by-name', expect: { kind: 'answer', figures: ['443,100.00'] } });
  });

  it('reads an answer that names words instead of figures, and amounts it must never state', () => {
    const [question] = parseQuestionSet(
      `- id: bpc-forecast
  question: BPC forecast for Contoso UK?
  expect: { kind: answer, figures: [], mentions: ['ACTUAL|actuals', BUDGET], never: ['0.00'] }
`,
      'mine.yaml',
    );
    expect(question?.expect).toEqual({ kind: 'answer', figures: [], mentions: ['ACTUAL|actuals', 'BUDGET'], never: ['0.00'] });
    expect(problemsOf("- id: nothing\n  question: BPC forecast?\n  expect: { kind: answer, figures: [] }\n")).toContain(
      "mine.yaml:3 question 1 (id 'nothing') expect.figures: must list at least one figure (or give mentions: the words a reply without figures must contain)",
    );
    expect(problemsOf("- id: zero\n  question: BPC forecast?\n  expect: { kind: answer, figures: [], mentions: [ACTUAL], never: [0] }\n")).toContain(
      "expect.never.0: must be text (quote it in YAML: '443,100.00')",
    );
  });

  it('reports every bad entry at once, with its line, question and what is expected', () => {
    const message = problemsOf(`- id: fine
  question: FI total for 1000 in December 2024
  expect: { kind: answer, figures: ['443,100.00'] }
- id: no-question
  expect: { kind: answer, figures: ['443,100.00'] }
- id: unknown-kind
  question: hello
  expect: { kind: figure, figures: ['1.00'] }
- id: unquoted-number
  question: FI total
  expect: { kind: answer, figures: [443100] }
- id: not-an-amount
  question: FI total
  expect: { kind: answer, figures: ['443100'] }
- id: typo
  question: and for 2000?
  follow_up: true
  expect: { kind: clarify, reason: vague }
- id: no-reason
  question: delete the load
  expect: { kind: decline }
- just a sentence
`);
    expect(message.split('\n')).toEqual([
      'Question file mine.yaml is invalid:',
      "  mine.yaml:4 question 2 (id 'no-question') question: is required",
      "  mine.yaml:8 question 3 (id 'unknown-kind') expect.kind: must have a kind: answer (with figures), clarify (with a reason), decline (with a reason) or knowledge (with cites)",
      "  mine.yaml:11 question 4 (id 'unquoted-number') expect.figures.0: must be text (quote it in YAML: '443,100.00')",
      "  mine.yaml:14 question 5 (id 'not-an-amount') expect.figures.0: must be an amount as the answers print it: '443,100.00' or '-3,646.01' (thousands commas, two decimals)",
      "  mine.yaml:17 question 6 (id 'typo'): unknown field 'follow_up': a question has id, question, expect, followUp and tags",
      "  mine.yaml:21 question 7 (id 'no-reason') expect.reason: is required",
      '  mine.yaml:22 question 8: must be a question: { id, question, expect, followUp?, tags? }',
    ]);
  });

  it('refuses repeated ids and a first question that is a follow-up', () => {
    const message = problemsOf(`- id: same
  question: and for 2000?
  followUp: true
  expect: { kind: clarify, reason: nothing to follow }
- id: same
  question: FI total for 1000 in December 2024
  expect: { kind: answer, figures: ['443,100.00'] }
`);
    expect(message).toContain("mine.yaml:3 question 1 (id 'same') followUp: the first question cannot be a follow-up: there is no conversation to follow");
    expect(message).toContain("mine.yaml:5 question 2 (id 'same') id: repeats the id of question 1; ids must be unique");
  });

  it('refuses a file that is not a list of questions, or not YAML at all', () => {
    expect(problemsOf('{"id": "one"}')).toContain('mine.yaml:1 (file): must be a list of questions (a YAML list, or a JSON array)');
    expect(problemsOf('[]')).toContain('mine.yaml:1 (file): holds no questions');
    expect(problemsOf('- id: a\n  question: b\n   expect: x: y\n')).toMatch(/^Question file mine\.yaml is not valid YAML or JSON:\n {2}mine\.yaml:2: /);
  });

  it('says which file cannot be read', () => {
    const missing = path.join(directory, 'missing.yaml');
    expect(() => loadQuestionSet(missing)).toThrow(`Question file ${missing} cannot be read: ENOENT. Pass --questions with a YAML or JSON file.`);
  });
});
