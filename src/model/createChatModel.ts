/**
 * Chooses the chat model: an OpenAI or OpenAI-compatible endpoint when one is configured,
 * otherwise the embedded offline planner. Either way the agent sees a LangChain chat model.
 * The endpoint's model lets the agent bind tools call by call (`withTools`) and knows its
 * context window (MODEL_CONTEXT_TOKENS); the offline planner keeps every tool bound.
 * The OpenAI client (@langchain/openai, about 0.4 s to load) is imported only when an endpoint
 * is configured, so the offline service starts without it.
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { ServiceConfig } from '../config/config.ts';
import type { BoundChatModel, ChatModelWithTools } from './chatModel.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { ModelToolDefinition } from '../skills/modelDefinition.ts';
import { mentionsAny } from '../scopes/scopedCatalog.ts';
import { OfflineChatModel } from './offline/offlineChatModel.ts';

export interface ModelDescription {
  provider: 'openai' | 'offline';
  name: string;
  base_url?: string;
}

/**
 * Builds the chat model. Invoked as it is, it has every registry tool bound (as before tools
 * were bound on demand); the agent calls `withTools` for the definitions each call needs.
 * @example
 * const { model, description } = await createChatModel(config.model, catalog, registry);
 */
export async function createChatModel(
  config: ServiceConfig['model'],
  catalog: Catalog,
  registry: SkillRegistry,
): Promise<{ model: ChatModelWithTools; description: ModelDescription }> {
  if (config.provider === 'offline') return createOfflineChatModel(catalog, registry);
  const tools = registry.list().map((entry) => entry.modelDefinition);
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
  const model: ChatModelWithTools = Object.assign(bind(tools), {
    withTools: bind,
    ...(config.contextTokens === undefined ? {} : { contextTokens: config.contextTokens }),
  });
  return { model, description: { provider: 'openai', name: config.modelName, ...(config.baseUrl ? { base_url: config.baseUrl } : {}) } };
}

/**
 * The embedded offline planner with every registry tool bound; synchronous, since it loads nothing.
 * @example
 * const scoped = createOfflineChatModel(scopedCatalog, registry, { hiddenTerms }).model; // a scoped key's offline model
 */
export function createOfflineChatModel(
  catalog: Catalog,
  registry: SkillRegistry,
  options: { hiddenTerms?: readonly string[] } = {},
): { model: ChatModelWithTools; description: ModelDescription } {
  // The planner only needs the tools' names: their model definitions are converted when a model over HTTP needs them.
  const tools = registry.list().map((entry) => ({ name: entry.tool.name }));
  // For a scoped key, the example questions it offers never name data hidden from the key.
  const hidden = options.hiddenTerms ?? [];
  const forms = registry.skills
    .flatMap((skill) => skill.questions ?? [])
    .map((form) => ({ ...form, examples: form.examples.filter((example) => !mentionsAny(example, hidden)) }));
  return { model: new OfflineChatModel({ catalog, forms }).bindTools(tools), description: { provider: 'offline', name: OfflineChatModel.modelName } };
}
