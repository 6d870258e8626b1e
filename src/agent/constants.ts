/**
 * Defaults that change how the agent behaves, in one place.
 */

/** At most this many model calls answer one question; then the run stops and says so. */
export const MAX_MODEL_CALLS_PER_QUESTION = 10;

/** A tool result longer than this (in characters) is cut before it reaches the model. */
export const MAX_TOOL_RESULT_CHARS = 32_000;

// The history budget: how much of a conversation goes with each question. One concept in
// three numbers, all here: the turns read from the application database (so the read does not
// grow with the conversation), the tokens the model is sent of them, and the recent turns
// always sent word for word. contextWindow.ts's DEFAULT_CONTEXT_BUDGET is built from these.

/**
 * Estimated tokens of conversation history sent with a question (system prompt excluded).
 * Older tool results are summarised and the oldest turns folded into a note to stay within it.
 */
export const HISTORY_TOKEN_BUDGET = 24_000;

/** The most recent turns always sent word for word, even beyond HISTORY_TOKEN_BUDGET. */
export const RECENT_TURNS_KEPT = 2;

/**
 * Earlier turns read from the application database for a question: the token budget keeps
 * far fewer word for word, and older ones are only counted in its summary note.
 */
export const HISTORY_TURNS_READ = 50;

// The model's context window: every call (system prompt, bound tool definitions, history, this
// turn) must fit into it, with room left for the reply.

/** The context window when MODEL_CONTEXT_TOKENS is not set: generous, as hosted models' are. */
export const DEFAULT_MODEL_CONTEXT_TOKENS = 128_000;

/** Tokens of the window kept for the reply: at most this many, and at most an eighth of the window. */
export const REPLY_TOKENS_RESERVED = 2_048;
