import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PrivatePostgres {
  url: string;
  /** `pg_ctl restart -m fast`: every connection is dropped, the server is back a moment later. */
  restart(): void;
  stop(): void;
  start(): void;
  destroy(): void;
}

/** The machine's PostgreSQL programs (`/usr/lib/postgresql/<version>/bin`), newest first; undefined when absent. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(root, version, 'bin')).find((bin) => existsSync(path.join(bin, 'pg_ctl')));
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A PostgreSQL server of the test's own, in a temporary folder, that it may restart at will (the shared
 * server is never touched). initdb and pg_ctl refuse to run as root, so they run as the `postgres` user.
 * Undefined when the programs or that user are not there.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres | undefined> {
  const bin = postgresBin();
  if (!bin || process.getuid?.() !== 0) return undefined;
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-pg-'));
  chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (program: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args], { stdio: 'ignore', timeout: 60_000 });
  const ctl = (action: string, extra: string[] = []) =>
    asPostgres('pg_ctl', [action, '-D', data, '-w', '-l', path.join(dir, 'log'), ...extra, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`]);
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  ctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => ctl('restart', ['-m', 'fast']),
    stop: () => asPostgres('pg_ctl', ['stop', '-D', data, '-w', '-m', 'fast']),
    start: () => ctl('start'),
    destroy() {
      try {
        asPostgres('pg_ctl', ['stop', '-D', data, '-w', '-m', 'immediate']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
