/**
 * A throwaway PostgreSQL server from Debian's binaries (or PG_BIN), for the tests' global setup
 * and the benchmark. initdb and pg_ctl refuse to run as root: as root they run as `postgres`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findPostgresBin, INSTALL_COMMAND } from './ensurePostgres.ts';

const run = promisify(execFile);

/** Single-quoted for /bin/sh. */
const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user. */
async function runServerTool(asPostgresUser: boolean, tool: string, args: string[]) {
  try {
    if (asPostgresUser) await run('su', ['postgres', '-s', '/bin/sh', '-c', [tool, ...args].map(shellQuote).join(' ')]);
    else await run(tool, args);
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(tool)} failed: ${(stderr || stdout || (error as Error).message).trim()}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throwaway PostgreSQL cluster in a temp directory on a free 127.0.0.1 port (C
 * collation, no durability); `stop` stops it and removes the directory. With `tls`, the server
 * also accepts TLS (`ssl=on`) with that certificate, and asks clients for certificates signed by
 * `clientCaFile` when given (plain connections still work: pg_hba stays `trust`).
 * @example
 * const cluster = await startCluster();
 * try { await use(cluster.adminUrl); } finally { await cluster.stop(); }
 * const secure = await startCluster({ tls: { certificateFile: 'server.crt', keyFile: 'server.key' } });
 */
export async function startCluster(options: { tls?: ClusterTls } = {}): Promise<{ bin: string; port: number; adminUrl: string; stop: () => Promise<void> }> {
  const bin = findPostgresBin(process.env.PG_BIN?.trim() || undefined);
  if (!bin) {
    throw new Error(`PostgreSQL server binaries (initdb, pg_ctl, postgres) not found under /usr/lib/postgresql/*/bin${process.env.PG_BIN ? ` or PG_BIN=${process.env.PG_BIN}` : ''}. Install them:\n  ${INSTALL_COMMAND}\nor use a running server: PG_TEST_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE npm test`);
  }
  const asPostgresUser = typeof process.getuid === 'function' && process.getuid() === 0;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'analyst-pg-'));
  const data = path.join(directory, 'data');
  let running = false;
  const stop = async () => {
    if (running) await runServerTool(asPostgresUser, path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    running = false;
    fs.rmSync(directory, { recursive: true, force: true });
  };
  try {
    if (asPostgresUser) {
      const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
      fs.chownSync(directory, await id('-u'), await id('-g'));
    }
    fs.chmodSync(directory, 0o700);
    await runServerTool(asPostgresUser, path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    // Socket in our directory (not /var/run/postgresql); durability is pointless for a throwaway cluster.
    const settings = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
    const tls = options.tls ? await tlsSettings(options.tls, directory, asPostgresUser) : '';
    try {
      await runServerTool(asPostgresUser, path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(directory, 'server.log'), '-w', '-t', '30', '-o', settings + tls, 'start']);
    } catch (error) {
      const log = fs.existsSync(path.join(directory, 'server.log')) ? fs.readFileSync(path.join(directory, 'server.log'), 'utf8').slice(-2000) : '';
      throw new Error(`${(error as Error).message}\n${log}`);
    }
    running = true;
    return { bin, port, adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

export interface ClusterTls {
  /** PEM certificate (chain) the server presents. */
  certificateFile: string;
  /** Its PEM private key (copied: the server wants it private to its own user). */
  keyFile: string;
  /** PEM CA whose client certificates the server asks for and checks (pg_stat_ssl shows them). */
  clientCaFile?: string;
}

/** Server options for TLS; the files are copied into the cluster directory with the modes the server insists on. */
async function tlsSettings(tls: ClusterTls, directory: string, asPostgresUser: boolean): Promise<string> {
  const owner = asPostgresUser ? await Promise.all(['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim()))) : undefined;
  const copy = (from: string, name: string) => {
    const to = path.join(directory, name);
    fs.copyFileSync(from, to);
    fs.chmodSync(to, 0o600);
    if (owner) fs.chownSync(to, owner[0]!, owner[1]!);
    return to;
  };
  const files = [`-c ssl_cert_file=${copy(tls.certificateFile, 'server.crt')}`, `-c ssl_key_file=${copy(tls.keyFile, 'server.key')}`];
  if (tls.clientCaFile) files.push(`-c ssl_ca_file=${copy(tls.clientCaFile, 'client-ca.crt')}`);
  return ` -c ssl=on ${files.join(' ')}`;
}
