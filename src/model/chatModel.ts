/**
 * The chat model as the agent uses it: a LangChain runnable that takes messages and answers with
 * an AIMessage, its tools already bound. Defined here, beside the code that builds it, so that
 * src/model never imports src/agent: the agent depends on the model, never the other way round.
 *
 * A model may also let the agent choose its tools call by call (`withTools`: tools bound on
 * demand, so a question starts with a few definitions) and say how large its context window is
 * (`contextTokens`, MODEL_CONTEXT_TOKENS). A model without them (the offline planner, a test's
 * scripted model) keeps the tools it was built with and the default window.
 */
import type { AIMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { ModelToolDefinition } from '../skills/modelDefinition.ts';

/** A runnable chat model: messages in, one AIMessage out. */
export type BoundChatModel = Runnable<BaseLanguageModelInput, AIMessage>;

/**
 * A chat model with the registry's tools bound (ChatOpenAI or the offline planner).
 * @example
 * const reply = await model.invoke([new HumanMessage('Total FI for 1000?')], { signal });
 * const lean = model.withTools?.([loadSkill]) ?? model;
 */
export type ChatModelWithTools = BoundChatModel & {
  /** The model with exactly these tool definitions bound, in this order; absent when its tools are fixed. */
  withTools?(tools: readonly ModelToolDefinition[]): BoundChatModel;
  /** Tokens the model's context window holds (prompt and reply); absent: the agent's default. */
  readonly contextTokens?: number;
};

/**
 * A chat model made on its first use: the offline planner and the OpenAI client both load
 * LangChain (about a third of the service's code), which a start need not wait for.
 */
export type ChatModelLoader = () => Promise<ChatModelWithTools>;

/** A chat model, or one made on first use. */
export type ChatModelSource = ChatModelWithTools | ChatModelLoader;
