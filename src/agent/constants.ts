/**
 * Defaults that change how the agent behaves, in one place.
 */

/** At most this many model calls answer one question; then the run stops and says so. */
export const MAX_MODEL_CALLS_PER_QUESTION = 10;

/** A tool result longer than this (in characters) is cut before it reaches the model. */
export const MAX_TOOL_RESULT_CHARS = 32_000;

/** Longest question accepted, in characters. */
export const MAX_MESSAGE_CHARS = 8_000;
