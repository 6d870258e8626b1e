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
import { createService } from './service.ts';

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

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
  const service = await createService(config, logger);
  const server = service.app.listen(config.port, config.host, () => {
    const port = (server.address() as AddressInfo | null)?.port ?? config.port;
    logger.info(
      { url: `http://${config.host}:${port}`, port, model: service.modelDescription, tools: service.registry.names(), data: config.dataDatabasePath ?? 'postgres' },
      `analyst agent listening on http://${config.host}:${port} with model ${service.modelDescription.provider}/${service.modelDescription.name}`,
    );
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
