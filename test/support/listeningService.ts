/**
 * The real service listening on 127.0.0.1 (a free port), for tests that need a real socket:
 * streams, hang-ups, timings. Closing drops open connections first, so a test's hung stream
 * cannot keep the file waiting.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

export interface ListeningService {
  service: Service;
  server: Server;
  /** Base URL without a trailing slash: http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

/**
 * Builds the service from `environment` (the whole configuration: nothing is added) and listens.
 * @example
 * const { url, close } = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: file });
 * await close();
 */
export async function listenService(environment: Record<string, string>): Promise<ListeningService> {
  const service = await createService(loadConfig(environment as NodeJS.ProcessEnv), silentLogger());
  const server = await new Promise<Server>((resolve) => {
    const started = service.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  return {
    service,
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
    },
  };
}

/**
 * Services a test file starts, closed together (typically in `afterEach`).
 * @example
 * const services = listeningServices();
 * afterEach(() => services.closeAll());
 * const { url } = await services.start({ LOG_LEVEL: 'silent', APP_DB: file });
 */
export function listeningServices(): { start(environment: Record<string, string>): Promise<ListeningService>; closeAll(): Promise<void> } {
  const running: ListeningService[] = [];
  return {
    start: async (environment) => {
      const started = await listenService(environment);
      running.push(started);
      return started;
    },
    closeAll: async () => {
      for (const started of running.splice(0)) await started.close();
    },
  };
}
