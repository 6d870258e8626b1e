/**
 * Conversation policy in one place, for every way in (POST /chat, POST /tools, and whatever
 * comes next): opening or continuing a session, running one turn alone on its session, storing
 * the turn (or what a failed one achieved), and the context tools run in. The HTTP routes only
 * translate requests to these calls and the results or errors back.
 *
 * The agent, and LangChain with it (about a third of the service's code), is imported with the
 * first question (or `prepare()`), so a start never waits for it.
 */
import type { AgentEventListener } from '../agent/events.ts';
import type { RunHooks } from '../agent/hooks.ts';
import { HISTORY_TURNS_READ } from '../agent/constants.ts';
import type { AnswerCheckMode } from '../config/config.ts';
import type { AgentRunResult, TurnProgress } from '../agent/runLoop.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { forCaller, type DataAccess } from '../data/dataAccess.ts';
import { ModelProviderError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import type { ChatModelSource, ChatModelWithTools } from '../model/chatModel.ts';
import { describeScope, type Caller, type DataScope } from '../scopes/dataScope.ts';
import { withPresentValues } from '../scopes/presentValues.ts';
import { once } from '../shared/once.ts';
import type { HiddenData } from '../scopes/hiddenWords.ts';
import { ScopedViews } from '../scopes/scopedView.ts';
import type { SessionSummary } from '../sessions/sessionRecords.ts';
import type { StopReason } from '../sessions/storedTurn.ts';
import type { SessionStore } from '../sessions/sessionStore.ts';
import type { KnowledgeBase, SessionState, ToolContext } from '../skills/api.ts';
import type { SkillRegistry, ToolOutcome } from '../skills/registry.ts';
import { CallerStates } from './callerState.ts';
import { DEFAULT_SESSION_MAX_TURNS, SessionGoneError, TurnLimitError } from './turnErrors.ts';

/**
 * What conversations need. Read at each call, not copied: the service's skills (registry,
 * model, prompt, knowledge) are swapped on a skill reload and new turns get the new ones.
 */
export interface ConversationDependencies {
  readonly sessions: SessionStore;
  readonly registry: SkillRegistry;
  /** The chat model, or what makes it on first use. */
  readonly model: ChatModelSource;
  readonly systemPrompt: string;
  readonly catalog: Catalog;
  readonly data: DataAccess;
  readonly knowledge?: KnowledgeBase | undefined;
  /** Turns one conversation may hold (SESSION_MAX_TURNS); absent: 200. */
  readonly sessionMaxTurns?: number | undefined;
  /**
   * The model for a scoped catalog, when the model itself knows the catalog (the offline model's
   * vocabulary and example questions): a scoped key's questions are then understood only in its
   * scope's words, and the examples it is offered name no hidden data (`hiddenTerms`).
   * Absent: every caller shares `model` (a remote model learns the catalog from tool results).
   */
  readonly modelFor?: ((catalog: Catalog, hiddenTerms: readonly string[]) => ChatModelWithTools | Promise<ChatModelWithTools>) | undefined;
  /** How answers' figures are checked (ANSWER_CHECK); absent: flagged, not repaired. */
  readonly answerCheck?: AnswerCheckMode | undefined;
}

/** One question on an opened session. */
export interface TurnRequest {
  session: SessionSummary;
  /** Who asks (the API key's name, identity and scope); its identity opened the session. */
  caller?: Caller | undefined;
  question: string;
  /** BCP 47 locale the answer's numbers are written in. */
  locale?: string | undefined;
  /** The request's logger (with the session id). */
  logger: Logger;
  /** Stops the turn: the client left or the deadline passed. */
  signal: AbortSignal;
  /** True once the client has gone: an unfinished turn is then stored as stopped by the client. */
  clientGone: () => boolean;
  /** Live events (streamed answers). */
  onEvent?: AgentEventListener | undefined;
  /** Observers of the agent run (metrics, trace). */
  hooks?: RunHooks | undefined;
}

/** A tool run on its own (POST /tools): its outcome and how long it took. */
export interface ToolRun {
  outcome: ToolOutcome;
  durationMs: number;
}

export class ConversationService {
  /** What scoped keys see of the catalog, data and knowledge, built once per scope. */
  private readonly views: ScopedViews;
  /** Models for scoped catalogs, by the scope's catalog, for the model they were made from (skill reloads replace it). */
  private scopedModels = new WeakMap<ChatModelSource, WeakMap<Catalog, Promise<ChatModelWithTools>>>();
  /** Follow-up values of tool calls outside conversations (a comparison_id from POST /tools), per caller. */
  private readonly callerStates = new CallerStates();

  constructor(private readonly deps: ConversationDependencies) {
    this.views = new ScopedViews(deps.catalog, deps.data);
  }

  /**
   * Loads the agent and makes the model now, so the first question does not wait for them (the
   * service calls it once it listens).
   * @example
   * void conversations.prepare().catch((error) => logger.warn({ err: error }, 'could not prepare the agent'));
   */
  async prepare(): Promise<void> {
    await Promise.all([loadAgent(), this.modelFor(undefined)]);
  }

  get maxTurns(): number {
    return this.deps.sessionMaxTurns ?? DEFAULT_SESSION_MAX_TURNS;
  }

  /**
   * Opens a conversation: continues `sessionId` (undefined when it is unknown, expired or
   * another owner's) or, without one, starts a new session.
   * @throws TurnLimitError when the session already holds `maxTurns` turns.
   * @example
   * const session = await conversations.open(body.session_id, owner);
   */
  async open(sessionId: string | undefined, owner?: string): Promise<SessionSummary | undefined> {
    const session = sessionId ? await this.deps.sessions.get(sessionId, owner) : await this.deps.sessions.create(owner);
    if (session && session.turns >= this.maxTurns) throw new TurnLimitError(session.id, this.maxTurns);
    return session;
  }

  /**
   * Answers one question and stores it as the session's next turn, after every earlier turn of
   * the session. A turn that fails stores what it achieved, marked `client_stopped` when the
   * client left or `provider_error` when the model provider failed, then rejects.
   * @throws SessionGoneError when the session was deleted meanwhile (nothing stored);
   *   TurnLimitError when earlier turns filled it; StorageUnavailableError; ModelProviderError.
   * @example
   * const run = await conversations.ask({ session, owner, question: 'Total FI for 1000?', logger, signal, clientGone: () => false });
   */
  ask(request: TurnRequest): Promise<AgentRunResult> {
    const { sessions } = this.deps;
    const { session, caller } = request;
    const owner = caller?.identity;
    return sessions.runExclusive(session.id, async () => {
      // Earlier turns of this session ran first: it may have been deleted or filled up meanwhile.
      const current = await sessions.get(session.id, owner);
      if (!current) throw new SessionGoneError(session.id);
      if (current.turns >= this.maxTurns) throw new TurnLimitError(session.id, this.maxTurns);
      // The last turns only (and how many older ones exist): the read does not grow with the conversation.
      const { messages: history, omittedTurns } = await sessions.recentHistory(session.id, owner, HISTORY_TURNS_READ);
      const startedAt = new Date();
      const { runAgent, progressOf } = await loadAgent();
      let run: AgentRunResult;
      try {
        run = await runAgent({
          model: await this.modelFor(caller),
          registry: this.deps.registry,
          systemPrompt: this.deps.systemPrompt,
          history,
          omittedTurns,
          question: request.question,
          ...(request.locale ? { locale: request.locale } : {}),
          toolContext: { ...(await this.toolContext(request.logger.child(auditFields(caller)), undefined, caller)), state: this.sessionState(session.id) },
          signal: request.signal,
          ...(request.onEvent ? { onEvent: request.onEvent } : {}),
          ...(request.hooks ? { hooks: request.hooks } : {}),
          answerCheck: this.deps.answerCheck ?? 'flag',
        });
      } catch (error) {
        // What the turn achieved is kept, marked with why it ended: the client stopped it, or the provider failed.
        const progress = progressOf(error);
        if (progress && request.clientGone()) await this.storeUnfinishedTurn(session.id, request.question, startedAt, progress, 'client_stopped', STOPPED_BY_CLIENT);
        else if (progress && ModelProviderError.isInstance(error)) await this.storeUnfinishedTurn(session.id, request.question, startedAt, progress, 'provider_error', providerFailureNote(error, progress));
        throw error;
      }
      // Deleted while the answer was being written: nothing was stored, so no answer either.
      if (!(await sessions.appendTurn(session.id, { ...run, question: request.question, startedAt, finishedAt: new Date() }))) throw new SessionGoneError(session.id);
      return run;
    });
  }

  /**
   * The context tools run in, for the agent and for direct tool calls alike: a scoped caller's
   * catalog, data and knowledge are its scope's (the data layer adds the scope to every query).
   * @example
   * const outcome = await registry.execute(toolName, {}, await conversations.toolContext(logger, signal, caller));
   */
  async toolContext(logger: Logger, signal?: AbortSignal, caller?: Caller): Promise<ToolContext> {
    const { catalog, data, knowledge } = caller?.scope ? await this.scopedView(caller.scope) : this.deps;
    // Each query carries the key's identity: the worker pool shares its workers fairly between keys.
    // Tools that return prose (load_skill) leave out what names data outside the scope.
    const hiddenTerms = caller?.scope ? this.hiddenTerms(caller) : undefined;
    return {
      catalog,
      data: caller ? forCaller(data, caller.identity) : data,
      knowledge,
      logger,
      ...(signal ? { signal } : {}),
      ...(hiddenTerms ? { hiddenTerms } : {}),
      ...(caller ? { caller: { name: caller.name, identity: caller.identity, scope: caller.scope, permissions: caller.permissions ?? [] } } : {}),
    };
  }

  /**
   * Words a caller must not be shown (hidden values, their names, hidden sources), for text
   * served outside tools (knowledge files as MCP resources); none for an unscoped caller.
   */
  hiddenTerms(caller?: Caller): string[] {
    return caller?.scope ? this.views.viewFor(caller.scope, this.deps.knowledge).hiddenTerms : [];
  }

  /** What a caller must not read about (sources, values and their words, src/scopes/hiddenWords.ts); undefined for an unscoped caller. */
  hiddenData(caller?: Caller): HiddenData | undefined {
    return caller?.scope ? this.views.viewFor(caller.scope, this.deps.knowledge).hidden : undefined;
  }

  /** The model a caller's questions go to: one that knows only its scope's catalog, when the model knows catalogs. */
  private async modelFor(caller: Caller | undefined): Promise<ChatModelWithTools> {
    const { model, modelFor } = this.deps;
    if (!caller?.scope || !modelFor) return typeof model === 'function' ? model() : model;
    let byCatalog = this.scopedModels.get(model);
    if (!byCatalog) this.scopedModels.set(model, (byCatalog = new WeakMap()));
    // Kept per scoped catalog: one narrowed to nothing because the data could not be read is built anew next time.
    const view = await this.scopedView(caller.scope);
    let scoped = byCatalog.get(view.catalog);
    if (!scoped) {
      const made = Promise.resolve(modelFor(view.catalog, view.hiddenTerms));
      byCatalog.set(view.catalog, (scoped = made));
      // A model that failed to load is made again next time.
      made.catch(() => byCatalog.delete(view.catalog));
    }
    return scoped;
  }

  /** A scope's view, its catalog listing only the values its rows hold (src/scopes/presentValues.ts). */
  private scopedView(scope: DataScope) {
    return withPresentValues(this.views.viewFor(scope, this.deps.knowledge));
  }

  /**
   * The session's durable state as tools see it (ToolContext.state): the store's artifacts.
   * @example
   * await conversations.sessionState(session.id).set('comparison:cmp_x', comparison);
   */
  sessionState(sessionId: string): SessionState {
    const { sessions } = this.deps;
    return {
      get: (key) => sessions.artifact(sessionId, key),
      set: async (key, value) => {
        // A session deleted meanwhile keeps nothing; the turn itself then ends as SessionGoneError.
        await sessions.saveArtifact(sessionId, key, value);
      },
    };
  }

  /**
   * Runs one tool outside a conversation (dashboards), with the validation and error shape the
   * model gets; never throws for a failing tool. The caller checks the tool exists first.
   * @example
   * const { outcome, durationMs } = await conversations.runTool(toolName, {}, { logger, signal });
   */
  async runTool(name: string, args: unknown, options: { logger: Logger; signal?: AbortSignal; caller?: Caller | undefined }): Promise<ToolRun> {
    const started = performance.now();
    const context = { ...(await this.toolContext(options.logger, options.signal, options.caller)), state: this.callerStates.for(options.caller?.identity) };
    const outcome = await this.deps.registry.execute(name, args, context);
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    options.logger.info({ ...auditFields(options.caller), tool: name, duration_ms: durationMs, ok: outcome.ok, ...(outcome.ok ? {} : { error_code: outcome.error.code }) }, 'tool call');
    return { outcome, durationMs };
  }

  /** Stores a turn that ended before its answer, so the next question continues from it. */
  private async storeUnfinishedTurn(sessionId: string, question: string, startedAt: Date, progress: TurnProgress, stopReason: StopReason, note: string): Promise<void> {
    const { AIMessage } = await loadAgent();
    await this.deps.sessions.appendTurn(sessionId, {
      messages: [...progress.messages, new AIMessage(note)],
      answer: note,
      finished: false,
      stopReason,
      iterations: progress.iterations,
      toolCalls: progress.toolCalls,
      usage: progress.usage,
      question,
      startedAt,
      finishedAt: new Date(),
    });
  }
}

/** The agent's run loop and LangChain's message class, imported on first use (see the header). */
const loadAgent = once(async () => {
  const [loop, messages] = await Promise.all([import('../agent/runLoop.ts'), import('@langchain/core/messages')]);
  return { runAgent: loop.runAgent, progressOf: loop.progressOf, AIMessage: messages.AIMessage };
});

/** The answer of a turn the client stopped; the closing assistant message keeps the history valid for the next turn. */
const STOPPED_BY_CLIENT = 'Stopped by the client before the answer was written. The question and the tool results so far are kept in this conversation; ask again to continue.';

function providerFailureNote(error: ModelProviderError, progress: TurnProgress): string {
  return `The model provider failed (${error.kind.replaceAll('_', ' ')}): ${error.message} The question${progress.toolCalls.length ? ' and the tool results so far' : ''} are kept in this conversation; ask again to continue.`;
}

/**
 * The audit fields of every tool call line: which key (by name, never the key) with which
 * scope. The agent's and runTool's 'tool call' lines carry them, so each tool call on every
 * path (/chat, /tools, /mcp) leaves one audit line.
 */
function auditFields(caller: Caller | undefined): { key: string | null; scope: string } {
  return { key: caller?.name ?? null, scope: describeScope(caller?.scope) };
}
