import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTandem } from './tandem-process.ts';

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-ports-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Another process's hold on a loopback port (0: any free one); undefined when it is taken already. */
function hold(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));
const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A port held by someone else whose neighbour below is free: PORT set there finds its workspace's port (PORT+1) taken. */
async function heldAboveAFreePort(): Promise<Server> {
  for (;;) {
    const held = (await hold(0))!;
    const below = await hold(portOf(held) - 1);
    if (below) return (await close(below), held);
    await close(held);
  }
}

describe('tandem start on a port it cannot have', () => {
  it('PORT 65535 in local mode stops with one line: the workspace would need 65536', async () => {
    const tandem = runTandem(['start'], { PORT: '65535', DATA_DIR: path.join(cwd, 'highest') }, cwd);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr()).toBe(
      'tandem: configuration error: PORT: expected a port number from 0 to 65534 in local mode: the local workspace listens on PORT+1\n',
    );
  }, 60_000);

  it('a PORT another process holds stops start-up with one line naming PORT and the port, no stack trace', async () => {
    const held = (await hold(0))!;
    try {
      const port = portOf(held);
      const tandem = runTandem(['start'], { PORT: String(port), DATA_DIR: path.join(cwd, 'busy') }, cwd);
      expect(await tandem.exited).toBe(1);
      expect(tandem.stderr()).toBe(
        `tandem: configuration error: PORT: ${port} is in use by another process: stop it, or set PORT to another port (0: any free one)\n`,
      );
    } finally {
      await close(held);
    }
  }, 60_000);

  it('a workspace port (PORT+1) another process holds is told the same way', async () => {
    const held = await heldAboveAFreePort();
    try {
      const taken = portOf(held);
      const tandem = runTandem(['start'], { PORT: String(taken - 1), DATA_DIR: path.join(cwd, 'busy-workspace') }, cwd);
      expect(await tandem.exited).toBe(1);
      expect(tandem.stderr()).toBe(
        `tandem: configuration error: PORT: the local workspace's port ${taken} (PORT+1) is in use by another process: stop it, or set PORT to another port (0: any free one)\n`,
      );
    } finally {
      await close(held);
    }
  }, 60_000);
});
