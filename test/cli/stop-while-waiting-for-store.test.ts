/**
 * `tandem start` with a PostgreSQL server that cannot be reached waits for it (decision 024), answering 503 on its
 * port meanwhile. A SIGTERM then stops it as on any other SIGTERM (README, Shutdown): it says it is stopping, frees
 * its port, says it stopped and exits 0. Before, nothing listened for the signal until the store was open, so the
 * process was killed by it: no words, no exit code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTandem } from './tandem-process.ts';

/** A port nothing listens on once this returns. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-stop-waiting-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('tandem start waiting for its database', () => {
  it('stops gracefully on SIGTERM: says so, frees its port and exits 0', async () => {
    const [port, nowhere] = await Promise.all([freePort(), freePort()]);
    const tandem = runTandem(
      ['start'],
      {
        PORT: String(port),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${nowhere}/tandem`,
        SLACK_BOT_TOKEN: 'xoxb-waiting-for-the-store',
        SLACK_SIGNING_SECRET: 'waiting-secret',
        SLACK_API_URL: `http://127.0.0.1:${nowhere}/api/`,
        LOG_LEVEL: 'info',
      },
      cwd,
    );
    try {
      await tandem.waitForLog(/cannot be reached: ECONNREFUSED; trying again, and answering 503 meanwhile/);
      // The port is held while it waits: Slack is told to come back later.
      let held: Response | undefined;
      for (let tries = 0; !held && tries < 100; tries++) {
        held = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!held) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(held?.status).toBe(503);

      tandem.child.kill('SIGTERM');
      expect(await tandem.exited).toBe(0);
      expect(tandem.child.signalCode).toBeNull();
      await tandem.waitForLog(/^stopping: /);
      await tandem.waitForLog('stopped');
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      expect(tandem.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      if (tandem.child.exitCode === null && tandem.child.signalCode === null) tandem.child.kill('SIGKILL');
    }
  }, 60_000);

  it('stops at once on SIGTERM while a connect attempt waits on a server that never answers, without waiting the attempt out', async () => {
    // Accepts the connection and never says a word: the attempt would wait for its connect timeout.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port: silentPort } = silent.address() as { port: number };
    const port = await freePort();
    const tandem = runTandem(
      ['start'],
      {
        PORT: String(port),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${silentPort}/tandem`,
        SLACK_BOT_TOKEN: 'xoxb-waiting-for-the-store',
        SLACK_SIGNING_SECRET: 'waiting-secret',
        SLACK_API_URL: `http://127.0.0.1:${silentPort}/api/`,
        LOG_LEVEL: 'info',
      },
      cwd,
    );
    try {
      for (let tries = 0; held.length === 0 && tries < 400; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(held.length).toBeGreaterThan(0);
      tandem.child.kill('SIGTERM');
      expect(await tandem.exited).toBe(0);
      await tandem.waitForLog(/^stopping: /);
      await tandem.waitForLog('stopped');
      // The attempt was given up, not waited out: it never failed, nothing was tried again, and no second connection came.
      expect(tandem.stdout()).not.toMatch(/cannot be reached/);
      expect(held).toHaveLength(1);
      expect(tandem.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      if (tandem.child.exitCode === null && tandem.child.signalCode === null) tandem.child.kill('SIGKILL');
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
