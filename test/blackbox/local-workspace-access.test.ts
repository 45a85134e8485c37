/**
 * The local workspace: with no SLACK_BOT_TOKEN, `tandem start` prints `Local workspace: <url>` and serves
 * a Slack-like page on 127.0.0.1. Requests without the printed secret, with another Host or from another
 * Origin get 403 and change nothing; a click acts only on a button of a message the bot posted.
 */
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTandem, type TandemProcess } from '../cli/tandem-process.ts';
import { untilIdle } from '../helpers/until-idle.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { OPENAI_KEY, buttonsOf, freshStore, poll } from './harness.ts';
import { plan, step } from './plans.ts';

interface PageMessage {
  ts: string;
  user: string;
  isBot: boolean;
  text: string;
  blocks: unknown[] | null;
  replies: PageMessage[];
}

let openai: FakeOpenAi;
let store: Awaited<ReturnType<typeof freshStore>>;
let tandem: TandemProcess;
let origin: string;
let key: string;

interface Sent {
  status: number;
  body: string;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
function send(method: string, path: string, options: { host?: string; origin?: string; json?: unknown; withKey?: boolean } = {}): Promise<Sent> {
  const url = new URL(path, origin);
  if (options.withKey) url.searchParams.set('k', key);
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers: Record<string, string> = { host: options.host ?? url.host };
  if (options.origin) headers.origin = options.origin;
  if (body) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port, method, path: url.pathname + url.search, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function state(): Promise<{ messages: PageMessage[]; healthUrl: string | null }> {
  const answer = await send('GET', '/local/state', { withKey: true });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as { messages: PageMessage[]; healthUrl: string | null };
}

const everyMessage = (messages: PageMessage[]) => messages.flatMap((m) => [m, ...m.replies]);

beforeAll(async () => {
  openai = await startFakeOpenAi();
  store = await freshStore();
  tandem = runTandem(
    ['start'],
    { PORT: '0', OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: openai.url, PLANNER_MODEL: 'openai:gpt-4o', ...store.env },
    store.cwd,
  );
  const deadline = Date.now() + 60_000;
  let line: string | undefined;
  while (!(line = /^Local workspace: (.+)$/m.exec(tandem.stdout())?.[1])) {
    if (tandem.child.exitCode !== null || Date.now() > deadline) throw new Error(`no "Local workspace:" line:\n${tandem.stdout()}\n${tandem.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const printed = new URL(line);
  origin = printed.origin;
  key = printed.searchParams.get('k') ?? '';
  await poll(async () => (await state()).healthUrl, 'the bot connected to the workspace', 30_000);
}, 90_000);

afterAll(async () => {
  if (tandem && tandem.child.exitCode === null) tandem.child.kill('SIGTERM');
  await tandem?.exited;
  await openai?.close().catch(() => undefined);
  await store?.cleanup();
});

describe('the local workspace', () => {
  it('prints a 127.0.0.1 address carrying a secret, and serves the page there', async () => {
    expect(new URL(origin).hostname).toBe('127.0.0.1');
    expect(key.length).toBeGreaterThanOrEqual(16);
    expect((await send('GET', '/', { withKey: true })).status).toBe(200);
  });

  it('a request without the secret, with a wrong secret, another Host (localhost too) or another Origin gets 403', async () => {
    expect((await send('GET', '/local/state')).status).toBe(403);
    expect((await send('GET', '/local/state?k=not-the-key')).status).toBe(403);
    expect((await send('GET', '/')).status).toBe(403);
    const port = new URL(origin).port;
    expect((await send('GET', '/local/state', { withKey: true, host: `rebind.evil.example:${port}` })).status).toBe(403);
    // Not the address printed either, though it names this machine.
    expect((await send('GET', '/local/state', { withKey: true, host: `localhost:${port}` })).status).toBe(403);
    expect((await send('GET', '/local/state', { withKey: true })).status).toBe(200);
    expect((await send('GET', '/local/state', { withKey: true, origin: 'http://evil.example' })).status).toBe(403);
  });

  it('a refused post, a forged bot message and a forged response change nothing', async () => {
    const before = JSON.stringify((await state()).messages);
    expect((await send('POST', '/local/messages', { json: { text: '@tandem tell everyone' } })).status).toBe(403);
    expect((await send('POST', '/local/messages', { json: { text: '@tandem tell everyone' }, withKey: true, origin: 'http://evil.example' })).status).toBe(403);
    const forged = {
      channel: 'CGENERAL',
      text: 'Plan',
      blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'plan-approve', value: 'x' }] }],
    };
    expect((await send('POST', '/api/chat.postMessage', { json: forged })).status).toBe(403);
    expect((await send('POST', '/api/chat.postMessage', { json: forged, withKey: true })).status).toBe(403);
    expect((await send('POST', '/respond/anything', { json: { text: 'forged reply' } })).status).toBe(403);
    expect(JSON.stringify((await state()).messages)).toBe(before);
    expect(openai.requests).toHaveLength(0);
  });

  it('a click acts only on a button of a message the bot posted', async () => {
    openai.enqueue(openAiReply.json(plan('Say hello here', [step('s1', 'Say it', 'slack_notify', { channel: 'CGENERAL', text: 'hello from the run' })])));
    const posted = await send('POST', '/local/messages', { json: { text: '@tandem say hello here' }, withKey: true });
    expect(posted.status, posted.body).toBe(200);
    const planMessage = await poll(
      async () => everyMessage((await state()).messages).find((m) => m.isBot && buttonsOf({ blocks: m.blocks ?? [] }).some((b) => b.text === 'Approve')),
      'the plan',
      30_000,
    );
    const approve = buttonsOf({ blocks: planMessage.blocks ?? [] }).find((b) => b.text === 'Approve')!;
    const mention = (await state()).messages.find((m) => !m.isBot)!;

    // The person's own message has no buttons; naming the bot's Approve on it is refused.
    const onMention = await send('POST', '/local/actions', {
      json: { messageTs: mention.ts, actionId: approve.actionId, blockId: approve.blockId },
      withKey: true,
    });
    expect(onMention.status).toBeGreaterThanOrEqual(400);
    const madeUp = await send('POST', '/local/actions', { json: { messageTs: planMessage.ts, actionId: 'not-a-button-here' }, withKey: true });
    expect(madeUp.status).toBeGreaterThanOrEqual(400);
    await untilIdle(new URL((await state()).healthUrl!).origin);
    expect(everyMessage((await state()).messages).some((m) => m.text.includes('hello from the run'))).toBe(false);

    // The real button, with a value the page made up: the bot gets the button's own value and runs the plan.
    const click = await send('POST', '/local/actions', {
      json: { messageTs: planMessage.ts, actionId: approve.actionId, blockId: approve.blockId, value: 'tampered' },
      withKey: true,
    });
    expect(click.status, click.body).toBe(200);
    await poll(async () => everyMessage((await state()).messages).some((m) => m.text.includes('hello from the run')), 'the approved run', 30_000);
  });

  it("the bot's own port refuses a request addressed to another name (a DNS name rebound to 127.0.0.1)", async () => {
    const { healthUrl } = await state();
    const bot = new URL(healthUrl!);
    const get = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: bot.port, path, headers: { host } }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        req.on('error', reject);
        req.end();
      });
    for (const path of ['/metrics', '/healthz']) {
      expect(await get(path, `rebind.evil.example:${bot.port}`), path).toBe(403);
      expect(await get(path, `127.0.0.1:${bot.port}`), path).toBe(200);
    }
  });

  it('listens on 127.0.0.1 only: the workspace and the bot are not reachable on another address', async () => {
    const { healthUrl } = await state();
    const ports = [Number(new URL(origin).port), Number(new URL(healthUrl!).port)];
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!external) return; // no other address on this machine to try
    for (const port of ports) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: external, port, timeout: 2000 }, () => (socket.destroy(), resolve(true)));
        socket.on('error', () => resolve(false));
        socket.on('timeout', () => (socket.destroy(), resolve(false)));
      });
      expect(reached, `port ${port} on ${external}`).toBe(false);
    }
  });
});
