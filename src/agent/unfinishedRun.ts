/**
 * The answer given when the model-call budget runs out: say so plainly and report what the
 * tool calls found, so the work done is not lost. Each finding is the tool's own one-line
 * summary (`summarize`), or a generic line for a tool without one.
 */
import type { ToolCallRecord } from '../sessions/storedTurn.ts';
import type { ToolSummaries } from './toolResultSummary.ts';

/**
 * A readable account of an unfinished run, built only from the tool results.
 * @example
 * summariseUnfinishedRun(records, 8, registry) // 'I stopped after 8 model calls, …\nWhat the 3 tool calls found so far:\n- …'
 */
export function summariseUnfinishedRun(records: readonly ToolCallRecord[], limit: number, tools?: ToolSummaries): string {
  return summariseFindings(records, `I stopped after ${limit} model calls, the limit for one question, before reaching a final answer.`, tools);
}

/**
 * `lead`, then what the tool calls found, then how to go on.
 * @example
 * summariseFindings(records, 'The model finished without writing an answer.', registry)
 */
export function summariseFindings(records: readonly ToolCallRecord[], lead: string, tools?: ToolSummaries): string {
  const lines = [lead];
  const findings = records.map((record) => describeRecord(record, tools)).filter(Boolean);
  if (findings.length === 0) {
    lines.push('No tool call produced a result yet.');
  } else {
    lines.push(`What the ${records.length} tool call${records.length === 1 ? '' : 's'} found so far:`);
    // The latest findings matter most; keep the list short.
    lines.push(...findings.slice(-8).map((line) => `- ${line}`));
  }
  lines.push('Ask a narrower follow-up question to continue from here.');
  return lines.join('\n');
}

function describeRecord(record: ToolCallRecord, tools: ToolSummaries | undefined): string {
  const result = record.result as Record<string, unknown> | null;
  if (!record.ok) {
    const error = (result?.error ?? {}) as { code?: string; message?: string };
    return `${record.name} failed (${error.code ?? 'error'}): ${error.message ?? ''}`.trim();
  }
  const own = tools?.summarize(record.name, record.result);
  if (own) return own;
  // Generic: the fields most tools share.
  if (result && typeof result.interpretation === 'string') return `${record.name}: ${result.interpretation}`;
  if (result && typeof result.row_count === 'number') return `${record.name} on ${String(result.source)}: ${result.row_count} row${result.row_count === 1 ? '' : 's'}.`;
  if (result && Array.isArray(result.sources)) return `${record.name}: ${result.sources.length} sources available.`;
  return `${record.name} succeeded.`;
}
