/**
 * `npm run mcp`: the service's tools for a local MCP client (Claude Desktop, an IDE agent)
 * over stdio, without HTTP. The configuration is the service's (the same environment
 * variables); stdout carries the protocol alone, so every log line goes to stderr. Ends when
 * the client closes stdin, or on SIGTERM/SIGINT, after closing the query workers and stores.
 * The client's first message picks the MCP revision for the connection: `server/discover`
 * (2026-07-28) or `initialize` (2025-11-25 and earlier).
 *
 * Without MCP_API_KEY the process sees all data (whoever can start it can read the data files
 * anyway); with it, the calls are that key's (API_KEYS or API_KEYS_FILE): its name in the audit
 * lines and its data scope, e.g. for an assistant that must see one company only.
 */
import { loadConfig, type ServiceConfig } from '../config/config.ts';
import { ConfigurationError } from '../errors/index.ts';
import { ApiKeys } from '../access/apiKeys.ts';
import { createLogger, type Logger } from '../logging/logger.ts';
import type { Caller } from '../scopes/dataScope.ts';
import type { Service } from '../service.ts';
import { startService } from '../serviceData.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, destination: 'stderr' });
  // A client that gives up while the service starts (stdin closed, then SIGTERM) is answered
  // once startup is done, with the same clean stop: killed mid-start, the process would leave
  // query workers behind that fail on their closed channel (ERR_IPC_CHANNEL_CLOSED).
  let requested: string | undefined;
  let stop: (reason: string) => void = (reason) => void (requested ??= reason);
  // The client is gone when stdin ends; the transport only notices its own close.
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('close', () => stop('stdin closed'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The SDK and the server load while the service starts (its query workers leave this process
  // waiting for a while); the query workers start first, then the rest of the service, without HTTP.
  const loadingMcp = Promise.all([import('@modelcontextprotocol/server/stdio'), import('./server.ts')]);
  loadingMcp.catch(() => undefined);
  const service = await startService(config, logger, { http: false });
  stop = once((reason: string) => shutdown(service, logger, reason));
  if (requested) return stop(requested);
  let serveStdio: typeof import('@modelcontextprotocol/server/stdio').serveStdio;
  let createMcpServer: typeof import('./server.ts').createMcpServer;
  try {
    [{ serveStdio }, { createMcpServer }] = await loadingMcp;
  } catch (error) {
    await service.close();
    throw error;
  }
  const connection = { caller: stdioCaller(config, process.env.MCP_API_KEY), logger };
  // One server per connection, of the revision the client opens with.
  serveStdio(() => createMcpServer(service.services, service.conversations, connection), { onerror: (error) => logger.warn({ err: error }, 'MCP message refused') });
  logger.info({ tools: service.registry.names(), model: service.modelDescription }, `MCP server on stdio with ${service.registry.names().length} tools`);
}

/**
 * The caller MCP_API_KEY names, or undefined (all data) without it.
 * @throws ConfigurationError when it is set but is none of the configured keys (never echoed).
 */
function stdioCaller(config: ServiceConfig, key: string | undefined): Caller | undefined {
  if (key === undefined || key.trim() === '') return undefined;
  const caller = new ApiKeys(config.apiKeys, config.declaredKeys).identify(key.trim());
  if (!caller) throw new ConfigurationError('Invalid configuration:\n  MCP_API_KEY: is not one of the keys of API_KEYS or API_KEYS_FILE');
  return caller;
}

/** Closes the query workers and the application database, then exits 0 (1 when closing failed). */
async function shutdown(service: Service, logger: Logger, reason: string): Promise<void> {
  logger.info({ reason }, `MCP server stopping: ${reason}`);
  let status = 0;
  try {
    await service.close();
  } catch (error) {
    logger.error({ err: error }, 'closing the service failed');
    status = 1;
  }
  process.exit(status);
}

/** `action` on the first call only: stdin's end, its close and a signal may all arrive. */
function once<Argument>(action: (argument: Argument) => Promise<void>): (argument: Argument) => void {
  let started = false;
  return (argument) => {
    if (started) return;
    started = true;
    void action(argument);
  };
}

main().catch((error: unknown) => {
  process.stderr.write(ConfigurationError.isInstance(error) ? `${error.message}\n` : `MCP server failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
