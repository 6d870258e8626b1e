/**
 * The answer given when the model-call budget runs out: say so plainly and report what the
 * tool calls found, so the work done is not lost.
 */
import type { ToolCallRecord } from './toolExecution.ts';

/** A readable account of an unfinished run, built only from the tool results. */
export function summariseUnfinishedRun(records: readonly ToolCallRecord[], limit: number): string {
  return summariseFindings(records, `I stopped after ${limit} model calls, the limit for one question, before reaching a final answer.`);
}

/** `lead`, then what the tool calls found, then how to go on. */
export function summariseFindings(records: readonly ToolCallRecord[], lead: string): string {
  const lines = [lead];
  const findings = records.map(describeRecord).filter(Boolean);
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

function describeRecord(record: ToolCallRecord): string {
  const result = record.result as Record<string, unknown> | null;
  if (!record.ok) {
    const error = (result?.error ?? {}) as { code?: string; message?: string };
    return `${record.name} failed (${error.code ?? 'error'}): ${error.message ?? ''}`.trim();
  }
  if (result && typeof result.interpretation === 'string') return `${record.name}: ${result.interpretation}`;
  if (result && typeof result.row_count === 'number') return `${record.name} on ${String(result.source)}: ${result.row_count} row${result.row_count === 1 ? '' : 's'}.`;
  if (result && Array.isArray(result.sources)) return `${record.name}: ${result.sources.length} sources available.`;
  return `${record.name} succeeded.`;
}
