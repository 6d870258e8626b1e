/**
 * Messages as the application database keeps them (LangChain's `StoredMessage`, plain JSON) and
 * back. Turning stored messages into LangChain's classes needs @langchain/core, about a sixth of
 * the service's code: it is imported with the first conversation read back, not at start.
 */
import type { BaseMessage, StoredMessage } from '@langchain/core/messages';
import { once } from '../shared/once.ts';

const messageClasses = once(() => import('@langchain/core/messages'));

/**
 * The messages as stored (no import: each message writes its own).
 * @example
 * const stored = JSON.stringify(toStoredMessages(turn.messages));
 */
export function toStoredMessages(messages: readonly BaseMessage[]): StoredMessage[] {
  return messages.map((message) => message.toDict());
}

/**
 * Stored messages as LangChain messages, for the model.
 * @example
 * const history = await toChatMessages(rows.map((row) => JSON.parse(row.message) as StoredMessage));
 */
export async function toChatMessages(stored: readonly StoredMessage[]): Promise<BaseMessage[]> {
  return (await messageClasses()).mapStoredMessagesToChatMessages([...stored]);
}
