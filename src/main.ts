/**
 * Entry point: read the configuration, build the service, listen, and shut down cleanly on
 * SIGTERM/SIGINT. Configuration problems print one clear message and exit with status 1.
 */
import { loadConfig } from './config/config.ts';
import { ConfigurationError } from './errors/index.ts';
import { createLogger } from './logging/logger.ts';
import { createService } from './service.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  const service = await createService(config, logger);
  const server = service.app.listen(config.port, config.host, () => {
    logger.info(
      { url: `http://${config.host}:${config.port}`, model: service.modelDescription, tools: service.registry.names(), data: config.dataDatabasePath },
      `analyst agent listening on http://${config.host}:${config.port} with model ${service.modelDescription.provider}/${service.modelDescription.name}`,
    );
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, `cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void service.close().then(() => process.exit(0));
    });
    // In-flight requests get a grace period, then we go anyway.
    setTimeout(() => process.exit(0), 10_000).unref();
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
