import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startTandem, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import type { PageState } from '../../src/workspace/local/browser-state.ts';

const RUNBOOKS = fileURLToPath(new URL('../../runbooks', import.meta.url));

/** This machine's first address that is not loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
if (!outsideAddress) console.log('test/workspace/local-runtime-edges.test.ts: the 127.0.0.1-only case skipped: this machine has no other IPv4 address');

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Tandem in local mode (no Slack tokens, no model), driven through the page's own browser API with the
 * printed key: what a stranger on the network or a forged click can and cannot do to it.
 */
describe('Tandem in local mode, at its edges', () => {
  let runtime: TandemRuntime;
  let dataDir: string;
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tandem-local-edges-'));
    const config = loadConfig({ DATA_DIR: dataDir, TANDEM_RUNBOOKS_DIR: RUNBOOKS, LOG_LEVEL: 'silent' });
    runtime = await startTandem({ config, logger: pino({ level: 'silent' }), local: true, port: 0 });
    key = new URL(runtime.workspace!.url).searchParams.get('k')!;
  });

  afterAll(async () => {
    await runtime?.close(5_000);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const page = (path: string) => `${runtime.workspace!.origin}${path}?k=${key}`;
  const state = async () => (await (await fetch(page('/local/state'))).json()) as PageState;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(page(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it.skipIf(!outsideAddress)('listens on 127.0.0.1 only: neither the bot nor the workspace answers on the machine’s other address', async () => {
    const workspacePort = Number(new URL(runtime.workspace!.origin).port);
    for (const port of [runtime.port, workspacePort]) {
      expect(await accepts('127.0.0.1', port)).toBe(true);
      expect(await accepts(outsideAddress!, port), `${outsideAddress}:${port}`).toBe(false);
    }
  });

  it('approves the run whose button was clicked, whatever value the click names; http_check reaches the bot and no other local port', async () => {
    const workspacePort = new URL(runtime.workspace!.origin).port;
    const own = `http://127.0.0.1:${runtime.port}/healthz`;
    const other = `http://127.0.0.1:${workspacePort}/healthz`;
    const first = await post('/local/messages', { text: `@tandem check health of ${other}` });
    const second = await post('/local/messages', { text: `@tandem check health of ${own}` });
    const approveOf = async (ts: unknown) => {
      for (let i = 0; i < 400; i += 1) {
        const thread = (await state()).messages.find((m) => m.ts === ts)?.replies ?? [];
        for (const message of thread) {
          for (const block of (message.blocks ?? []) as {
            type: string;
            block_id?: string;
            elements?: { action_id: string; value?: string; text?: { text: string } }[];
          }[]) {
            const button = block.type === 'actions' ? block.elements?.find((e) => e.text?.text === 'Approve') : undefined;
            if (button) return { messageTs: message.ts, blockId: block.block_id, actionId: button.action_id, value: button.value };
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no Approve button in the thread of ${String(ts)}`);
    };
    const a = await approveOf(first.body.ts);
    const b = await approveOf(second.body.ts);
    expect(a.value).not.toBe(b.value);

    // A click on the first plan's button that names the second run's value.
    expect((await post('/local/actions', { messageTs: a.messageTs, actionId: a.actionId, blockId: a.blockId, value: b.value })).status).toBe(200);

    const threadText = async (ts: unknown) => JSON.stringify((await state()).messages.find((m) => m.ts === ts)?.replies ?? []);
    for (let i = 0; i < 400 && !(await threadText(first.body.ts)).includes('TANDEM_HTTP_ALLOW'); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const firstThread = await threadText(first.body.ts);
    expect(firstThread).toContain('Approved by');
    expect(firstThread).toContain(`host 127.0.0.1:${workspacePort} is not in TANDEM_HTTP_ALLOW`);
    const secondThread = await threadText(second.body.ts);
    expect(secondThread).not.toContain('Approved by');
    expect(secondThread).toContain('"Approve"');
  });

  it("a DM plans in its thread with Slack's agent surfaces, and a thumb on its summary is kept and answered privately", async () => {
    const own = `http://127.0.0.1:${runtime.port}/healthz`;
    const asked = await post('/local/messages', { channel: 'DLOCAL', text: `check health of ${own}` });
    expect(asked.status).toBe(200);
    const thread = async () => (await state()).messages.find((m) => m.ts === asked.body.ts)!;
    const blockOf = async (type: string) => {
      for (let i = 0; i < 400; i += 1) {
        for (const message of (await thread()).replies) {
          const block = ((message.blocks ?? []) as { type: string; block_id?: string; elements?: { action_id: string; text?: { text: string } }[] }[]).find(
            (b) => b.type === type,
          );
          if (block) return { messageTs: message.ts, block };
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${type} block in the DM thread`);
    };
    const plan = await blockOf('actions');
    const approve = plan.block.elements!.find((e) => e.text?.text === 'Approve')!;
    expect((await post('/local/actions', { messageTs: plan.messageTs, blockId: plan.block.block_id, actionId: approve.action_id })).status).toBe(200);
    const summary = await blockOf('context_actions');
    const { model } = runtime.workspace!.fake;
    expect(model.threadStatusLog).toContainEqual({ channel: 'DLOCAL', threadTs: asked.body.ts, status: 'is planning…' });
    for (let i = 0; i < 100 && (await thread()).surfaces.session !== 'closed'; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await thread()).surfaces).toEqual({ status: null, session: 'closed' });
    expect((await thread()).channel).toBe('DLOCAL');

    const thumb = { messageTs: summary.messageTs, blockId: summary.block.block_id, actionId: summary.block.elements![0]!.action_id, feedback: 'positive' };
    expect((await post('/local/actions', thumb)).status).toBe(200);
    const answers = async () => (await state()).ephemerals.filter((e) => e.channel === 'DLOCAL' && e.threadTs === asked.body.ts).map((e) => e.text);
    for (let i = 0; i < 100 && (await answers()).length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await answers()).toEqual([expect.stringMatching(/^Thanks — noted: this run went well for you/)]);
  });
});
