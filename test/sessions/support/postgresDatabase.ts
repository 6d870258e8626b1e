/**
 * PostgreSQL application databases for the session store tests: a fresh, empty database on the
 * test server (`(await postgresUrls()).adminUrl`, test/support/engineServers.ts) per test or test file, dropped
 * afterwards; and a TCP relay in front of the server that a test can cut and restore, to see
 * what the store does when PostgreSQL goes away (the shared server itself is never stopped).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { withPostgres } from '../../support/postgresClient.ts';

export interface ScratchDatabase {
  /** postgres://…/sessions_xxx with the admin's credentials. */
  url: string;
  name: string;
  /** Drops the database, ending connections still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database named `<prefix>_<random>` on the admin URL's server.
 * @example
 * const database = await scratchDatabase((await postgresUrls()).adminUrl);
 * const store = await openPostgresStore({ url: database.url, ttlMs: 0 });
 * await database.drop();
 */
export async function scratchDatabase(adminUrl: string, prefix = 'sessions'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withPostgres(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export interface Relay {
  /** The database URL with the relay's port instead of the server's. */
  url: string;
  /** Refuses new connections and breaks the open ones, as a server that went away. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 to the server of `targetUrl`.
 * @example
 * const relay = await startRelay(database.url);
 * const store = await openPostgresStore({ url: relay.url, ttlMs: 0 });
 * await relay.cut(); // the store now reports the database down
 */
export async function startRelay(targetUrl: string): Promise<Relay> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  const listen = (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
  const port = await listen(0);
  const url = new URL(targetUrl);
  url.port = String(port);
  const cut = async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    url: url.toString(),
    cut,
    restore: async () => {
      await listen(port);
    },
    close: async () => {
      if (server.listening) await cut();
    },
  };
}
