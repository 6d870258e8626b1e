/**
 * The chat model as the agent uses it: a LangChain runnable that takes messages and answers with
 * an AIMessage, its tools already bound. Defined here, beside the code that builds it, so that
 * src/model never imports src/agent: the agent depends on the model, never the other way round.
 */
import type { AIMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';

/**
 * A chat model with the registry's tools bound (ChatOpenAI or the offline planner).
 * @example
 * const reply = await model.invoke([new HumanMessage('Total FI for 1000?')], { signal });
 */
export type ChatModelWithTools = Runnable<BaseLanguageModelInput, AIMessage>;
