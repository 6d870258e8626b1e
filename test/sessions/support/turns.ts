/**
 * Turns for the session store tests: a question, an assistant message with a tool call, its
 * tool result and the answer, as the agent loop would produce them.
 */
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { TurnInput } from '../../../src/sessions/sessionRecords.ts';

export function sampleTurn(question: string, index = 0, at = new Date('2025-01-01T10:00:00.000Z')): TurnInput {
  const callId = `call_${index}_a`;
  const args = { source: 'fi_reporting', filters: { company: '1000', period: { from: '2024010', to: '2024012' } } };
  const result = { rows: [{ company: '1000', amount: 443100, currency: 'EUR' }], row_count: 1, note: 'ünïcödé ✓ "quoted"' };
  const answer = `Answer ${index}: 443,100.00 EUR for "${question}"`;
  return {
    question,
    answer,
    finished: true,
    stopReason: 'completed',
    iterations: 2,
    toolCalls: [{ id: callId, name: 'query_source', args, ok: true, result, duration_ms: 12.5 }],
    usage: { input_tokens: 100 + index, output_tokens: 20, total_tokens: 120 + index, prompt_tokens: 90 + index },
    messages: [
      new HumanMessage(question),
      new AIMessage({
        content: '',
        id: `msg_${index}`,
        tool_calls: [{ id: callId, name: 'query_source', args, type: 'tool_call' }],
        usage_metadata: { input_tokens: 50, output_tokens: 10, total_tokens: 60 },
        response_metadata: { model_name: 'offline' },
      }),
      new ToolMessage({ tool_call_id: callId, name: 'query_source', content: JSON.stringify(result), status: 'success' }),
      new AIMessage({ content: answer, usage_metadata: { input_tokens: 50, output_tokens: 10, total_tokens: 60 } }),
    ],
    startedAt: at,
    finishedAt: new Date(at.getTime() + 1500),
  };
}
