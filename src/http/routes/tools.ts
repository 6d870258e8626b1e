/**
 * Tools over HTTP for dashboards: GET /skills lists skills (disabled ones too) and tool schemas; POST /tools/{name}
 * runs one tool with the same validation and error shape the model gets. A client that disconnects
 * cancels the tool's queries; a full query queue or a missing data database is a 503 with Retry-After.
 */
import { Router } from 'express';
import type { ConversationService } from '../../conversations/conversationService.ts';
import { abortOnDisconnect } from '../abortOnDisconnect.ts';
import type { SkillRegistry } from '../../skills/registry.ts';
import { sendProblem, type ProblemKind } from '../problem.ts';
import { withoutMentions } from '../../scopes/hiddenWords.ts';
import { callerOf } from '../../access/caller.ts';

/** Tool errors that mean "not now" rather than "not like this": 503 problems with Retry-After. */
const unavailableKinds: Partial<Record<string, ProblemKind>> = { busy: 'busy', data_unavailable: 'dataUnavailable', source_unavailable: 'dataUnavailable' };

/**
 * `services.registry` is read at each request (a skill reload replaces it).
 * @example
 * app.use(toolRoutes(services, conversations)); // GET /skills, POST /tools/{name}
 */
export function toolRoutes(services: { readonly registry: SkillRegistry }, conversations: ConversationService): Router {
  const router = Router();

  router.get('/skills', (_request, response) => {
    const { registry } = services;
    // A scoped key reads no sentence naming data outside its scope (src/scopes/hiddenWords.ts).
    const hiddenTerms = conversations.hiddenTerms(callerOf(response));
    const shown = (text: string) => withoutMentions(text, hiddenTerms);
    // Enabled skills with their tools, then disabled ones (no tools), each group in load order.
    response.json({
      skills: [...registry.skills, ...registry.disabledSkills].map((skill) => ({
        name: skill.name,
        description: shown(skill.description),
        version: skill.version,
        tags: skill.tags ?? [],
        enabled: skill.enabled !== false,
        tools: skill.tools.map((tool) => ({
          name: tool.name,
          description: shown(tool.description),
          input_schema: registry.get(tool.name)!.inputSchema,
          output_schema: registry.get(tool.name)!.outputSchema,
        })),
        // Pages the skill serves beside the chat (a disabled skill's index.ts is not loaded: none).
        pages: (skill.pages ?? []).map((page) => ({ name: page.name, title: shown(page.title), path: `/app/${page.name}`, framable: page.framable === true })),
      })),
    });
  });

  router.post('/tools/:name', async (request, response) => {
    const name = request.params.name;
    if (!services.registry.get(name)) {
      const { error } = services.registry.unknownToolError(name).toPayload();
      sendProblem(response, 'toolNotFound', `${error.message} ${error.hint ?? ''}`.trim(), { error });
      return;
    }
    // No body at all means no arguments; a body in another format is refused.
    if (request.headers['content-type'] !== undefined && !request.is('application/json')) {
      sendProblem(response, 'unsupportedMediaType', "Send the tool arguments as a JSON object with 'Content-Type: application/json'.");
      return;
    }
    const args = request.body ?? {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      sendProblem(response, 'invalidRequest', 'The body must be a JSON object holding the tool arguments.');
      return;
    }
    // A client that hangs up cancels its work: queued queries leave the line, running ones stop.
    const disconnected = abortOnDisconnect(response);
    // The same tool context as the agent's (the conversation service builds both).
    const { outcome, durationMs } = await conversations.runTool(name, args, { logger: request.log, signal: disconnected, caller: callerOf(response) });
    if (disconnected.aborted) {
      request.log.info({ tool: name, duration_ms: durationMs }, 'tool call cancelled: the client went away');
      return;
    }
    if (outcome.ok) {
      response.json({ tool: name, ok: true, result: outcome.result, duration_ms: durationMs, ...(outcome.presentation ? { presentation: outcome.presentation } : {}) });
      return;
    }
    const extra = { tool: name, ok: false, error: outcome.error, duration_ms: durationMs };
    // Nothing ran and nothing is wrong with the call: 503 with when to retry.
    const unavailable = unavailableKinds[outcome.error.code];
    if (unavailable) {
      const retryAfter = Number(outcome.error.retry_after_seconds) || 1;
      response.setHeader('retry-after', String(retryAfter));
      sendProblem(response, unavailable, outcome.error.message, { ...extra, retry_after: retryAfter });
      return;
    }
    // A crash inside the tool is our fault, not the caller's: 500, still with the tool's error shape.
    const kind = outcome.error.code === 'internal_error' ? 'internal' : 'toolError';
    sendProblem(response, kind, outcome.error.message, extra);
  });

  return router;
}
