/**
 * Chooses the chat model: an OpenAI or OpenAI-compatible endpoint when one is configured,
 * otherwise the embedded offline planner. Either way the agent sees a LangChain chat model.
 * The endpoint's model lets the agent bind tools call by call (`withTools`) and knows its
 * context window (MODEL_CONTEXT_TOKENS); the offline planner keeps every tool bound.
 * Either model is made on the first question, not at start: both load LangChain (the OpenAI
 * client, @langchain/openai, only when an endpoint is configured).
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { ServiceConfig } from '../config/config.ts';
import type { BoundChatModel, ChatModelLoader, ChatModelWithTools } from './chatModel.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { ModelToolDefinition } from '../skills/modelDefinition.ts';
import { mentionsAny } from '../scopes/scopedCatalog.ts';
import { once } from '../shared/once.ts';
import { OFFLINE_MODEL_NAME } from './offline/modelName.ts';

export interface ModelDescription {
  provider: 'openai' | 'offline';
  name: string;
  base_url?: string;
}

/**
 * Describes the chat model and returns what makes it on first use (the same model after).
 * Invoked as it is, the model has every registry tool bound; the agent calls `withTools` for
 * the definitions each call needs.
 * @example
 * const { model, description } = createChatModel(config.model, catalog, registry);
 * const chat = await model(); // loads LangChain
 */
export function createChatModel(
  config: ServiceConfig['model'],
  catalog: Catalog,
  registry: SkillRegistry,
): { model: ChatModelLoader; description: ModelDescription } {
  if (config.provider === 'offline') {
    return { model: once(async () => (await createOfflineChatModel(catalog, registry)).model), description: offlineDescription };
  }
  return {
    model: once(() => createOpenAIChatModel(config, registry)),
    description: { provider: 'openai', name: config.modelName, ...(config.baseUrl ? { base_url: config.baseUrl } : {}) },
  };
}

const offlineDescription: ModelDescription = { provider: 'offline', name: OFFLINE_MODEL_NAME };

async function createOpenAIChatModel(config: Extract<ServiceConfig['model'], { provider: 'openai' }>, registry: SkillRegistry): Promise<ChatModelWithTools> {
  const tools = registry.list().filter((entry) => !entry.tool.peopleOnly).map((entry) => entry.modelDefinition);
  const { ChatOpenAI } = await import('@langchain/openai');
  const chat = new ChatOpenAI({
    model: config.modelName,
    // Local OpenAI-compatible servers ignore the key, but the client refuses to start without one.
    apiKey: config.apiKey ?? 'not-needed',
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    temperature: 0,
    ...(config.baseUrl ? { configuration: { baseURL: config.baseUrl } } : {}),
  });
  const bind = (definitions: readonly ModelToolDefinition[]) => chat.bindTools([...definitions]) as unknown as BoundChatModel;
  return Object.assign(bind(tools), {
    withTools: bind,
    ...(config.contextTokens === undefined ? {} : { contextTokens: config.contextTokens }),
  });
}

/**
 * The embedded offline planner with every registry tool bound.
 * @example
 * const scoped = (await createOfflineChatModel(scopedCatalog, registry, { hiddenTerms })).model; // a scoped key's offline model
 */
export async function createOfflineChatModel(
  catalog: Catalog,
  registry: SkillRegistry,
  options: { hiddenTerms?: readonly string[] } = {},
): Promise<{ model: ChatModelWithTools; description: ModelDescription }> {
  const { OfflineChatModel } = await import('./offline/offlineChatModel.ts');
  // The planner only needs the tools' names: their model definitions are converted when a model over HTTP needs them.
  const tools = registry.list().map((entry) => ({ name: entry.tool.name }));
  // For a scoped key, the example questions it offers never name data hidden from the key.
  const hidden = options.hiddenTerms ?? [];
  const forms = registry.skills
    .flatMap((skill) => skill.questions ?? [])
    .map((form) => ({ ...form, examples: form.examples.filter((example) => !mentionsAny(example, hidden)) }));
  return { model: new OfflineChatModel({ catalog, forms }).bindTools(tools), description: offlineDescription };
}
