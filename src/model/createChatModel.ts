/**
 * Chooses the chat model: an OpenAI or OpenAI-compatible endpoint when one is configured,
 * otherwise the embedded offline planner. Either way the agent sees a LangChain chat model.
 */
import { ChatOpenAI } from '@langchain/openai';
import type { Catalog } from '../catalog/catalog.ts';
import type { ServiceConfig } from '../config/config.ts';
import type { ChatModelWithTools } from './chatModel.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import { OfflineChatModel } from './offline/offlineChatModel.ts';

export interface ModelDescription {
  provider: 'openai' | 'offline';
  name: string;
  base_url?: string;
}

/** Builds the chat model with every registry tool bound to it. */
export function createChatModel(config: ServiceConfig['model'], catalog: Catalog, registry: SkillRegistry): { model: ChatModelWithTools; description: ModelDescription } {
  const tools = registry.list().map((entry) => ({
    type: 'function' as const,
    function: { name: entry.tool.name, description: entry.tool.description, parameters: entry.inputSchema },
  }));
  if (config.provider === 'offline') {
    return { model: new OfflineChatModel({ catalog, forms: registry.skills.flatMap((skill) => skill.questions ?? []) }).bindTools(tools), description: { provider: 'offline', name: OfflineChatModel.modelName } };
  }
  const chat = new ChatOpenAI({
    model: config.modelName,
    // Local OpenAI-compatible servers ignore the key, but the client refuses to start without one.
    apiKey: config.apiKey ?? 'not-needed',
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    temperature: 0,
    ...(config.baseUrl ? { configuration: { baseURL: config.baseUrl } } : {}),
  });
  return {
    model: chat.bindTools(tools) as unknown as ChatModelWithTools,
    description: { provider: 'openai', name: config.modelName, ...(config.baseUrl ? { base_url: config.baseUrl } : {}) },
  };
}
