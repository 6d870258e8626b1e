/**
 * `npm start`, as the README gives it, shuts down gracefully on SIGTERM sent to npm (what
 * systemd, Docker and Ctrl-C do): npm's script shell hands its place to the service, so the
 * signal reaches it, in-flight work ends and npm exits 0 — no service left serving behind it.
 */
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startServer, waitFor, type ServerProcess } from './support/serverProcess.ts';

let server: ServerProcess | undefined;
let servicePid: number | undefined;
afterEach(async () => {
  // Should the test fail, the service process must not outlive it.
  if (servicePid !== undefined) {
    try {
      process.kill(servicePid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await server?.kill();
  server = undefined;
  servicePid = undefined;
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

describe('npm start', () => {
  it('stops the service on SIGTERM to npm, gracefully, and npm exits 0', async () => {
    server = await startServer({ APP_DB: path.join(temporaryDirectory(), 'app.db') }, 30_000, ['npm', 'start', '--silent']);
    servicePid = server.logs.find((entry) => typeof entry.port === 'number')!.pid as number;
    expect(servicePid).not.toBe(server.child.pid);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    expect(code).toBe(0);
    await waitFor(() => server!.logs.some((entry) => entry.msg === 'shutdown complete'), 5_000, 'the service to log its shutdown');
    expect(await refused(server.port)).toBe(true);
    expect(() => process.kill(servicePid!, 0)).toThrow();
  }, 40_000);
});
