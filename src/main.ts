/**
 * Entry point: read the configuration, build the service, listen, and shut down gracefully on
 * SIGTERM/SIGINT (see http/shutdown.ts): stop accepting connections, let in-flight requests
 * finish within SHUTDOWN_GRACE_MS, end event streams still open then with a
 * `/problems/shutting-down` event, close the query workers and the application database, exit 0.
 * Configuration problems print one clear message and exit with status 1.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config/config.ts';
import { ConfigurationError } from './errors/index.ts';
import { gracefulShutdown } from './http/shutdown.ts';
import { createLogger } from './logging/logger.ts';
import { startService } from './serviceData.ts';

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/**
 * How long after it starts listening the service loads the agent and LangChain (about 0.15 s of
 * work), so that the first question does not wait for them: not at once, which would hold up
 * the first requests (a readiness probe's) by as much. A question before then loads them itself.
 */
const PREPARE_DELAY_MS = 1_000;

/** SHUTDOWN_GRACE_MS: how long in-flight requests may take to finish on SIGTERM/SIGINT. */
function shutdownGraceMs(env: NodeJS.ProcessEnv): number {
  const raw = env.SHUTDOWN_GRACE_MS?.trim();
  if (raw === undefined || raw === '') return DEFAULT_SHUTDOWN_GRACE_MS;
  if (!/^\d+$/.test(raw) || Number(raw) > 600_000) {
    throw new ConfigurationError(`SHUTDOWN_GRACE_MS must be a whole number of milliseconds between 0 and 600000, got '${raw}'`);
  }
  return Number(raw);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const graceMs = shutdownGraceMs(process.env);
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  // The query workers start first; the rest of the service loads while they do (serviceData.ts).
  const service = await startService(config, logger);
  const server = service.app.listen(config.port, config.host, () => {
    const port = (server.address() as AddressInfo | null)?.port ?? config.port;
    logger.info(
      { url: `http://${config.host}:${port}`, port, model: service.modelDescription, tools: service.registry.names(), data: config.dataDatabasePath ?? 'postgres' },
      `analyst agent listening on http://${config.host}:${port} with model ${service.modelDescription.provider}/${service.modelDescription.name}`,
    );
    setTimeout(() => {
      service.conversations.prepare().catch((error: unknown) => logger.warn({ err: error }, 'could not load the agent ahead of the first question; the first question will try again'));
    }, PREPARE_DELAY_MS).unref();
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, `cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'shutdown already under way; a second signal stops at once');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal, grace_ms: graceMs }, `received ${signal}: shutting down`);
    void gracefulShutdown({ server, logger, graceMs, closeService: () => service.close() }).then((status) => {
      logger.info({ status }, 'shutdown complete');
      process.exit(status);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (ConfigurationError.isInstance(error)) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
