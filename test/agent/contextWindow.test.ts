/**
 * The history sent to the model stays within a token budget: old tool results become short
 * summaries, the oldest turns become one note, the recent turns go verbatim, and the result
 * is always a valid OpenAI conversation. Histories are built the way the agent loop builds
 * them: real data_analyst tools over the sample database, run by the loop's own executor.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_BUDGET, fitHistory, isHistorySummary, type ContextBudget } from '../../src/agent/contextWindow.ts';
import { estimateTokens } from '../../src/agent/tokenEstimate.ts';
import { executeToolCalls } from '../../src/agent/toolExecution.ts';
import { normaliseAssistantMessage } from '../../src/agent/turnPreparation.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

type Toolbox = Awaited<ReturnType<typeof sampleToolbox>>;
type Call = { name: string; args: Record<string, unknown> };

let toolbox: Toolbox;
let callCounter = 0;

beforeAll(async () => {
  toolbox = await sampleToolbox();
});
afterAll(() => toolbox.close());

// ---------------------------------------------------------------------------------------------
// Building histories as the agent loop does

/** One turn: the question, one assistant message per round of tool calls with its results, the answer. */
async function turn(question: string, rounds: Call[][], answer: string): Promise<BaseMessage[]> {
  const messages: BaseMessage[] = [new HumanMessage(question)];
  for (const calls of rounds) {
    const reply = new AIMessage({
      content: '',
      tool_calls: calls.map((call) => ({ id: `call_${(callCounter += 1)}`, name: call.name, args: call.args, type: 'tool_call' as const })),
    });
    const { message, calls: pending } = normaliseAssistantMessage(reply);
    const executed = await executeToolCalls(pending, toolbox.registry, toolbox.context);
    messages.push(message, ...executed.messages);
  }
  messages.push(new AIMessage(answer));
  return messages;
}

const december = { company: '1000', period: '2024012' };
const fiVsBpc = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: december };

/** Five kinds of realistic turns, the big ones with 200-row results. */
const scripts: (() => Promise<BaseMessage[]>)[] = [
  () => turn('Which sources can I compare?', [[{ name: 'list_sources', args: {} }]], 'There are four sources: fi_reporting, consolidation_mart, bpc_reporting and fi_acquisition. FI and BPC can be compared on company, period and group account.'),
  () =>
    turn(
      'Show FI amounts by company, period and group account.',
      [[{ name: 'query_source', args: { source: 'fi_reporting', dimensions: ['company', 'period', 'group_account'], limit: 200 } }]],
      'Here are the first 200 rows of FI by company, period and group account; company 1000 posted revenue of 1,701,800.00 EUR in January 2024.',
    ),
  () =>
    turn(
      'Compare FI and BPC for company 1000 in December 2024.',
      [[{ name: 'compare_sources', args: fiVsBpc }]],
      'FI is higher than BPC by 110,000.00 EUR (24.8%) for company 1000 in December 2024: one major difference.',
    ),
  () =>
    turn(
      'Why do they differ?',
      [[{ name: 'explain_difference', args: { comparison: fiVsBpc } }]],
      'The whole 110,000.00 EUR gap is in group account G4000000 (revenue): load request REQ_2024012_1000_02 in FI holds exactly that amount, which looks like a duplicated load.',
    ),
  () =>
    turn(
      'And the amounts of fi_reportin by document and period, with the BPC comparison?',
      [
        [{ name: 'query_source', args: { source: 'fi_reportin' } }],
        [
          { name: 'query_source', args: { source: 'fi_reporting', dimensions: ['document', 'period'], limit: 200 } },
          { name: 'compare_sources', args: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' } },
        ],
      ],
      'I used fi_reporting (fi_reportin does not exist). The first 200 documents are listed; across 2024, FI and BPC differ in 2 of 36 company-periods.',
    ),
];

async function conversation(turns: number): Promise<BaseMessage[]> {
  const history: BaseMessage[] = [];
  for (let index = 0; index < turns; index += 1) history.push(...(await scripts[index % scripts.length]!()));
  return history;
}

/** The turns of a history: each from a HumanMessage to the next. */
function turnsOf(messages: readonly BaseMessage[]): BaseMessage[][] {
  const turns: BaseMessage[][] = [];
  for (const message of messages) {
    if (HumanMessage.isInstance(message) || turns.length === 0) turns.push([message]);
    else turns[turns.length - 1]!.push(message);
  }
  return turns;
}

function text(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

// ---------------------------------------------------------------------------------------------
// The OpenAI chat format: every assistant message with tool calls is followed by exactly its tool results.

function chatFormatProblems(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (ToolMessage.isInstance(message)) {
      problems.push(`message ${index}: tool result ${message.tool_call_id} does not follow its assistant message`);
      continue;
    }
    if (!AIMessage.isInstance(message) || !message.tool_calls?.length) continue;
    const expected = message.tool_calls.map((call) => call.id);
    const answered: string[] = [];
    while (ToolMessage.isInstance(messages[index + 1])) {
      index += 1;
      answered.push((messages[index] as ToolMessage).tool_call_id);
    }
    if (new Set(expected).size !== expected.length) problems.push(`message ${index}: duplicate tool call ids`);
    if ([...answered].sort().join() !== [...expected].sort().join()) {
      problems.push(`assistant calls [${expected.join(', ')}] answered by [${answered.join(', ')}]`);
    }
  }
  return problems;
}

function expectValidChat(messages: readonly BaseMessage[]): void {
  expect(chatFormatProblems(messages)).toEqual([]);
}

/** Everything a message carries, to prove nothing was changed in place. */
function snapshot(messages: readonly BaseMessage[]): string {
  return JSON.stringify(messages.map((message) => ({ type: message.type, dict: message.toDict(), status: (message as ToolMessage).status })));
}

function summaryOf(message: BaseMessage): string {
  const parsed = JSON.parse(text(message)) as { summary: string; omitted: boolean };
  expect(parsed.omitted).toBe(true);
  return parsed.summary;
}

// ---------------------------------------------------------------------------------------------

describe('the validator', () => {
  it('accepts a real turn and rejects broken pairings', async () => {
    const messages = await scripts[4]!();
    expectValidChat(messages);
    const [question, call, result] = messages;
    expect(chatFormatProblems([question!, result!])).toHaveLength(1); // a tool result without its call
    expect(chatFormatProblems([question!, call!])).toHaveLength(1); // a call without its result
    expect(chatFormatProblems([call!, question!, result!])).toHaveLength(2); // something in between
    expect(chatFormatProblems([call!, result!, result!])).toHaveLength(1); // answered twice
  });
});

describe('estimateTokens', () => {
  it('grows with content, tool call arguments and messages', () => {
    expect(estimateTokens([])).toBe(0);
    const short = estimateTokens([new HumanMessage('Compare FI and BPC.')]);
    const long = estimateTokens([new HumanMessage('Compare FI and BPC for company 1000 in December 2024, by group account.')]);
    expect(long).toBeGreaterThan(short);
    expect(estimateTokens([new HumanMessage('Compare FI and BPC.'), new AIMessage('')])).toBeGreaterThan(short);

    const call = (args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'compare_sources', args, type: 'tool_call' }] });
    expect(estimateTokens([call({ ...fiVsBpc, align_on: ['company', 'period', 'group_account'] })])).toBeGreaterThan(estimateTokens([call(fiVsBpc)]));
    expect(estimateTokens([call(fiVsBpc)])).toBeGreaterThan(estimateTokens([new AIMessage('')]));
  });

  it('does not under-count JSON rows (o200k_base measures ~3.4 characters per token on them)', async () => {
    const [, , rows] = await scripts[1]!();
    const characters = text(rows!).length;
    expect(characters).toBeGreaterThan(15_000);
    expect(estimateTokens([rows!])).toBeGreaterThanOrEqual(Math.ceil(characters / 3.4));
    expect(estimateTokens([rows!])).toBeLessThanOrEqual(Math.ceil(characters / 3) + 20);
  });

  it('counts content given as text blocks like plain text', () => {
    const plain = estimateTokens([new HumanMessage('Compare FI and BPC for December.')]);
    expect(estimateTokens([new HumanMessage({ content: [{ type: 'text', text: 'Compare FI and BPC for December.' }] })])).toBe(plain);
  });
});

describe('fitHistory', () => {
  it('passes a conversation within budget through unchanged', async () => {
    const history = await conversation(3);
    const fitted = fitHistory(history);
    expect(estimateTokens(history)).toBeLessThan(DEFAULT_CONTEXT_BUDGET.maxTokens);
    expect(fitted.messages).toEqual(history);
    fitted.messages.forEach((message, index) => expect(message).toBe(history[index]));
    expect(fitted.messages).not.toBe(history);
    expect(fitted).toMatchObject({ summarisedToolResults: 0, droppedTurns: 0, estimatedTokens: estimateTokens(history) });
  });

  it('keeps 50 turns with big tool results within the budget, the last turns verbatim', async () => {
    const history = await conversation(50);
    const before = estimateTokens(history);
    const budget: ContextBudget = { maxTokens: 12_000, keepRecentTurns: 2 };
    const fitted = fitHistory(history, budget);

    expect(before).toBeGreaterThan(10 * budget.maxTokens);
    expect(fitted.estimatedTokens).toBeLessThanOrEqual(budget.maxTokens);
    expect(fitted.estimatedTokens).toBe(estimateTokens(fitted.messages));
    expect(fitted.droppedTurns).toBeGreaterThan(0);
    expect(fitted.droppedTurns).toBeLessThan(50 - budget.keepRecentTurns);
    expectValidChat(fitted.messages);

    // The last turns are the very same messages.
    const recent = turnsOf(history).slice(-budget.keepRecentTurns).flat();
    const tail = fitted.messages.slice(-recent.length);
    tail.forEach((message, index) => expect(message).toBe(recent[index]));

    // One note first, for the dropped turns; then whole turns (each starts with its question).
    const [note, ...rest] = fitted.messages;
    expect(isHistorySummary(note!)).toBe(true);
    expect(text(note!)).toMatch(new RegExp(`^Summary of earlier conversation \\(${fitted.droppedTurns} earlier turns`));
    expect(text(note!)).toContain('Q: ');
    expect(text(note!)).toContain(' → A: ');
    expect(HumanMessage.isInstance(rest[0])).toBe(true);
    expect(rest.filter(isHistorySummary)).toHaveLength(0);
    expect(turnsOf(rest)).toHaveLength(50 - fitted.droppedTurns);

    // Kept older turns carry summaries in place of their long results.
    expect(fitted.summarisedToolResults).toBeGreaterThan(0);
    const olderResults = turnsOf(rest).slice(0, -budget.keepRecentTurns).flat().filter((m) => ToolMessage.isInstance(m));
    expect(olderResults.filter((m) => text(m).includes('"omitted":true'))).toHaveLength(fitted.summarisedToolResults);
    for (const result of olderResults) expect(text(result).length).toBeLessThan(420);
  });

  it('summarises old tool results first, dropping no turn when that is enough', async () => {
    const history = await conversation(5);
    const fitted = fitHistory(history, { maxTokens: 8_000, keepRecentTurns: 1 }, 0, toolbox.registry);
    expect(estimateTokens(history)).toBeGreaterThan(8_000);
    expect(fitted.droppedTurns).toBe(0);
    expect(fitted.estimatedTokens).toBeLessThanOrEqual(8_000);
    expectValidChat(fitted.messages);
    expect(fitted.messages).toHaveLength(history.length);

    // Same calls answered, same ids, names and statuses; the questions and answers untouched.
    fitted.messages.forEach((message, index) => {
      const original = history[index]!;
      expect(message.type).toBe(original.type);
      if (!ToolMessage.isInstance(message)) return expect(message).toBe(original);
      expect(message.tool_call_id).toBe((original as ToolMessage).tool_call_id);
      expect(message.name).toBe(original.name);
      expect(message.status).toBe((original as ToolMessage).status);
    });

    const summaries = new Map<string, string[]>();
    fitted.messages.forEach((message, index) => {
      if (!ToolMessage.isInstance(message) || message === history[index]) return;
      const summary = summaryOf(message);
      expect(summary.length).toBeLessThanOrEqual(300);
      summaries.set(message.name!, [...(summaries.get(message.name!) ?? []), summary]);
    });
    expect(fitted.summarisedToolResults).toBe([...summaries.values()].flat().length);

    expect(summaries.get('list_sources')).toEqual([expect.stringMatching(/^list_sources: 4 sources \(fi_reporting, consolidation_mart, bpc_reporting, fi_acquisition\)/)]);
    expect(summaries.get('query_source')![0]).toMatch(/^query_source fi_reporting: 200 of \d+ rows of amount by company, period, group_account, currency\. first row: \{"company":"1000","period":"2024001","group_account":"G4000000","currency":"EUR","amount":1701800\}/);
    expect(summaries.get('compare_sources')![0]).toMatch(/^compare_sources fi_reporting vs bpc_reporting amount \[cmp_[\w-]+\]: 1 aligned row: 1 major_diff\. Largest gap at company 1000, period 2024012: /);
    expect(summaries.get('compare_sources')![0]).toContain('fi_reporting is higher by 110,000.00 EUR (24.8%)');
    expect(summaries.get('explain_difference')![0]).toMatch(/^explain_difference: The gap of 110,000\.00 EUR .* group account G4000000\. In fi_reporting, load request REQ_2024012_1000_02 holds 110,000\.00 EUR, exactly the gap\./);
    // The last turn (fi_reportin → error, then a query and a comparison) is recent: verbatim.
    const lastTurn = turnsOf(fitted.messages).at(-1)!;
    expect(lastTurn.some((m) => text(m).includes('"code":"unknown_source"'))).toBe(true);
    expect(lastTurn.every((m, i) => m === turnsOf(history).at(-1)![i])).toBe(true);
  });

  it('summarises long errors by tool, code and message, and keeps short results as they are', async () => {
    const history = [
      ...(await turn('FI amounts for document XYZ?', [[{ name: 'query_source', args: { source: 'fi_reporting', filters: { document: 'XYZ' } } }]], 'There is no document XYZ in FI.')),
      ...(await turn('And group account G9?', [[{ name: 'query_source', args: { source: 'fi_reporting', filters: { group_account: 'G9' } } }]], 'There is no group account G9.')),
      ...(await scripts[1]!()),
    ];
    const fitted = fitHistory(history, { maxTokens: 3_000, keepRecentTurns: 0 }, 0, toolbox.registry);
    const results = fitted.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(results[0]!.status).toBe('error');
    expect(summaryOf(results[0]!)).toMatch(/^query_source failed \(unknown_value\): No row of 'fi_reporting' has document = 'XYZ'\. Hint: Values of document: /);
    expect(results[1]).toBe(history[6]); // 384 characters: kept
    expect(summaryOf(results[2]!)).toMatch(/^query_source fi_reporting: 200 of/);
    expect(fitted.summarisedToolResults).toBe(2);
  });

  it('summarises a result the agent already cut to size, from what its partial JSON still says', () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => ({ company: '1000', document: String(100000000 + i), amount: i * 10 }));
    const huge = JSON.stringify({ source: 'fi_reporting', rows, row_count: 2000, total_rows: 9000 });
    const cut = JSON.stringify({ truncated: true, note: `The result had ${huge.length} characters and was cut.`, partial: huge.slice(0, 31_700) });
    const history: BaseMessage[] = [
      new HumanMessage('All FI documents?'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'query_source', args: { source: 'fi_reporting' }, type: 'tool_call' }] }),
      new ToolMessage({ tool_call_id: 'c1', name: 'query_source', content: cut }),
      new AIMessage('Too many rows to list.'),
      new HumanMessage('OK, thanks.'),
      new AIMessage('You are welcome.'),
    ];
    const fitted = fitHistory(history, { maxTokens: 1_000, keepRecentTurns: 1 });
    expect(summaryOf(fitted.messages[2]!)).toBe('query_source: a large result, cut before it reached the model; source fi_reporting.');
    expect(fitted.droppedTurns).toBe(0);
  });

  it('never mutates the history it is given', async () => {
    const history = await conversation(14); // ends with the comparison and its explanation
    const frozen = Object.freeze([...history]);
    const before = snapshot(history);
    const fitted = fitHistory(frozen, { maxTokens: 1_500, keepRecentTurns: 2 });
    expect(fitted.droppedTurns).toBeGreaterThan(0);
    expect(fitted.summarisedToolResults).toBeGreaterThan(0);
    expect(snapshot(history)).toBe(before);
    expect(frozen).toEqual(history);
    fitted.messages.push(new HumanMessage('appended'));
    expect(frozen).toHaveLength(history.length);
  });

  it('sends the recent turns verbatim even when they alone exceed the budget, and says so in the estimate', async () => {
    const history = await conversation(4); // the last two turns: a 200-row query and a comparison
    const fitted = fitHistory(history, { maxTokens: 1_000, keepRecentTurns: 3 });
    const recent = turnsOf(history).slice(-3).flat();
    expect(fitted.droppedTurns).toBe(1);
    expect(fitted.messages.slice(1)).toEqual(recent);
    expect(fitted.messages.slice(1).every((m, i) => m === recent[i])).toBe(true);
    expect(fitted.estimatedTokens).toBeGreaterThan(1_000);
    expectValidChat(fitted.messages);
  });

  it('with keepRecentTurns 0 drops every turn into the note when nothing else fits', async () => {
    const history = await conversation(3);
    const fitted = fitHistory(history, { maxTokens: 100, keepRecentTurns: 0 });
    expect(fitted.droppedTurns).toBe(3);
    expect(fitted.messages).toHaveLength(1);
    expect(fitted.estimatedTokens).toBeLessThanOrEqual(100);
    expect(text(fitted.messages[0]!)).toMatch(/^Summary of earlier conversation \(3 earlier turns not shown in full; the 2 oldest not listed\):\n- Q: Compare FI and BPC for company 1000 in December 2024\. → A: FI is higher/);
  });

  it('cuts questions and answers in the note and caps the note, listing the latest dropped turns', () => {
    const history: BaseMessage[] = [];
    for (let index = 0; index < 40; index += 1) {
      history.push(new HumanMessage(`Question ${index}: ${'why is the gap so large? '.repeat(30)}`), new AIMessage(`Answer ${index}: ${'the load was duplicated. '.repeat(30)}`));
    }
    const fitted = fitHistory(history, { maxTokens: 3_000, keepRecentTurns: 2 });
    const note = text(fitted.messages[0]!);
    expect(fitted.estimatedTokens).toBeLessThanOrEqual(3_000);
    expect(note.length).toBeLessThanOrEqual(Math.floor(3_000 * 0.25 * 3.2));
    const lines = note.split('\n').slice(1);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThan(fitted.droppedTurns);
    expect(note.split('\n')[0]).toBe(`Summary of earlier conversation (${fitted.droppedTurns} earlier turns not shown in full; the ${fitted.droppedTurns - lines.length} oldest not listed):`);
    for (const line of lines) {
      const match = /^- Q: (.*) → A: (.*)$/.exec(line);
      expect(match).not.toBeNull();
      expect(match![1]!.length).toBeLessThanOrEqual(200);
      expect(match![2]!.length).toBeLessThanOrEqual(200);
      expect(match![1]).toMatch(/…$/);
    }
    // The latest dropped turn is listed last.
    expect(lines.at(-1)).toMatch(new RegExp(`^- Q: Question ${fitted.droppedTurns - 1}: `));
  });

  it('keeps leading system messages first and puts the note after them', async () => {
    const system = new SystemMessage('You are a data analyst assistant.');
    const history = [system, ...(await conversation(9))];
    const fitted = fitHistory(history, { maxTokens: 1_500, keepRecentTurns: 1 });
    expect(fitted.messages[0]).toBe(system);
    expect(isHistorySummary(fitted.messages[1]!)).toBe(true);
    expect(fitted.estimatedTokens).toBeLessThanOrEqual(1_500);
    expectValidChat(fitted.messages);
  });

  it('repairs a history that breaks the pairing: a stray result is left out, a missing one is stated', () => {
    const call = (id: string) => new AIMessage({ content: '', tool_calls: [{ id, name: 'list_sources', args: {}, type: 'tool_call' }] });
    const history: BaseMessage[] = [
      new HumanMessage('Sources?'),
      new ToolMessage({ tool_call_id: 'stray', name: 'list_sources', content: '{}' }),
      call('a'),
      new HumanMessage('Hello?'),
      call('b'),
      new ToolMessage({ tool_call_id: 'b', name: 'list_sources', content: '{"sources":[]}' }),
      new ToolMessage({ tool_call_id: 'b', name: 'list_sources', content: '{"sources":[]}' }),
      new AIMessage('No sources.'),
    ];
    const fitted = fitHistory(history);
    expectValidChat(fitted.messages);
    expect(fitted.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human', 'ai', 'tool', 'ai']);
    expect(fitted.messages[2]).toMatchObject({ tool_call_id: 'a', name: 'list_sources', status: 'error' });
    expect(summaryOf(fitted.messages[2]!)).toBe('No result was recorded for this list_sources call.');
    expect(fitted.messages[5]).toBe(history[5]);
  });

  it('rejects a budget that cannot be met', () => {
    expect(() => fitHistory([], { maxTokens: 0, keepRecentTurns: 2 })).toThrow(RangeError);
    expect(() => fitHistory([], { maxTokens: Number.NaN, keepRecentTurns: 2 })).toThrow(RangeError);
    expect(() => fitHistory([], { maxTokens: 1_000, keepRecentTurns: -1 })).toThrow(RangeError);
    expect(() => fitHistory([], { maxTokens: 1_000, keepRecentTurns: 1.5 })).toThrow(RangeError);
    expect(fitHistory([])).toEqual({ messages: [], estimatedTokens: 0, summarisedToolResults: 0, droppedTurns: 0 });
  });

  it('for any mix of turns and budget: valid chat, recent turns verbatim, within budget when they fit, input untouched', async () => {
    const pool = await Promise.all(scripts.map((script) => script()));
    const small = [
      [new HumanMessage('Thanks!'), new AIMessage('You are welcome.')],
      [new HumanMessage('Hm.'), new AIMessage({ content: '', tool_calls: [{ id: 'x1', name: 'list_sources', args: {}, type: 'tool_call' }] }), new ToolMessage({ tool_call_id: 'x1', name: 'list_sources', content: '{"error":{"code":"x"}}' }), new AIMessage('')],
    ];
    const kinds = [...pool, ...small];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: kinds.length - 1 }), { maxLength: 30 }),
        fc.integer({ min: 200, max: 40_000 }),
        fc.integer({ min: 0, max: 4 }),
        (picks, maxTokens, keepRecentTurns) => {
          const history = picks.flatMap((pick) => kinds[pick]!);
          const before = snapshot(history);
          const fitted = fitHistory(history, { maxTokens, keepRecentTurns });
          expect(chatFormatProblems(fitted.messages)).toEqual([]);
          expect(snapshot(history)).toBe(before);
          const recent = keepRecentTurns === 0 ? [] : turnsOf(history).slice(-keepRecentTurns).flat();
          const tail = recent.length === 0 ? [] : fitted.messages.slice(-recent.length);
          tail.forEach((message, index) => expect(message).toBe(recent[index]));
          const notes = fitted.messages.filter(isHistorySummary);
          expect(notes).toHaveLength(fitted.droppedTurns > 0 ? 1 : 0);
          expect(turnsOf(fitted.messages.filter((m) => !isHistorySummary(m)))).toHaveLength(picks.length - fitted.droppedTurns);
          const recentTokens = estimateTokens(recent);
          if (recentTokens + 200 <= maxTokens * 0.7) expect(fitted.estimatedTokens).toBeLessThanOrEqual(maxTokens);
        },
      ),
      { numRuns: 150 },
    );
  });
});
