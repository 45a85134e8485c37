/**
 * Over HTTP a click or an event is answered by the ingress once the inbox has stored it, before Bolt's
 * receiver or app sees it (ingress-ack.ts). These pin what a person or Slack would notice of that path:
 * the 200 does not wait for the listeners, each request is handled once however often Slack sends it,
 * and every refusal is what it was.
 */
import type { AnyMiddlewareArgs } from '@slack/bolt';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ingressAck, type AnsweringInbox } from '../../src/bot/ingress/ingress-ack.ts';
import { signedRequestListener } from '../../src/bot/ingress/signed-request.ts';
import { SlackDriver } from '../../src/workspace/slack-fake/index.ts';
import { createMemoryInbox, type SlackInbox } from '../../src/bot/ports.ts';
import { eventually, SIGNING_SECRET, silentLogger, startSlackHarness, type SlackHarness } from '../fakes/slack-harness.ts';

const FORM = 'application/x-www-form-urlencoded';

/** A memory inbox that remembers the keys it was asked to store, and can be made to fail. */
function recordingInbox(): SlackInbox & { keys: string[]; failing: boolean } {
  const memory = createMemoryInbox();
  const inbox = {
    ...memory,
    keys: [] as string[],
    failing: false,
    async record(entry: { key: string; body: Record<string, unknown> }) {
      inbox.keys.push(entry.key);
      if (inbox.failing) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      return memory.record(entry);
    },
  };
  return inbox;
}

/** Every request Bolt's app runs its middleware for, by kind; `hold` keeps them there until released. */
function watchBolt(h: SlackHarness): { seen: string[]; hold(): () => void } {
  const seen: string[] = [];
  let held: Promise<void> | undefined;
  h.slack.app.use(async ({ body, next }: AnyMiddlewareArgs & { next: () => Promise<void> }) => {
    const request = body as { type?: string; trigger_id?: string; event_id?: string };
    seen.push(`${request.type}:${request.trigger_id ?? request.event_id ?? ''}`);
    await held;
    await next();
  });
  return {
    seen,
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
  };
}

/** A click exactly as Slack would send it again: the same trigger id each time. */
function clickBody(triggerId: string): string {
  const payload = {
    type: 'block_actions',
    trigger_id: triggerId,
    user: { id: 'U1' },
    team: { id: 'T1' },
    api_app_id: 'A1',
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C1' },
    channel: { id: 'C1' },
    message: { ts: '1700000000.000100', text: 'a message', blocks: [] },
    actions: [{ type: 'button', action_id: 'retired_button_v0', block_id: 'b', value: 'x', action_ts: '1700000001.000001' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('a click or an event over HTTP', () => {
  it("is answered once stored, while Bolt's app has not finished with it (its middleware held), then handled once", async () => {
    const inbox = recordingInbox();
    h = await startSlackHarness({ inbox });
    const bolt = watchBolt(h);
    const release = bolt.hold();
    const click = await h.driver.send(clickBody('trigger-held'), FORM);
    const mention = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> check CI' });
    expect([click.status, (await mention).status]).toEqual([200, 200]);
    expect(click.body).toBe('');
    expect(inbox.keys).toEqual(['action:trigger-held', `event:${mention.eventId}`]);
    expect(h.agent.callsOf('startRun')).toEqual([]);
    release();
    await eventually(() => expect(h!.agent.callsOf('startRun')).toHaveLength(1));
    expect(bolt.seen).toEqual(['block_actions:trigger-held', `event_callback:${mention.eventId}`]);
  });

  it('sent again by Slack (the same trigger or event id, with a retry number) is answered each time and handled once', async () => {
    h = await startSlackHarness();
    const bolt = watchBolt(h);
    const sent = await Promise.all([h.driver.send(clickBody('trigger-twice'), FORM), h.driver.send(clickBody('trigger-twice'), FORM, { retryNum: 1 })]);
    expect(sent.map((answer) => answer.status)).toEqual([200, 200]);
    expect((await h.driver.send(clickBody('trigger-twice'), FORM, { retryNum: 2 })).status).toBe(200);
    const mention = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> release v1' });
    expect((await mention).status).toBe(200);
    const again = await h.driver.event(
      { type: 'app_mention', user: 'U1', text: '<@UBOT> release v1', ts: mention.ts, channel: 'C1', event_ts: mention.ts },
      { eventId: mention.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await eventually(() => expect(h!.agent.callsOf('startRun')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bolt.seen).toEqual(['block_actions:trigger-twice', `event_callback:${mention.eventId}`]);
    expect(h.agent.callsOf('startRun')).toHaveLength(1);
  });

  it('that cannot be stored gets a 5xx, so Slack sends it again, and reaches no listener; sent again once the store is back, it is handled once', async () => {
    const inbox = recordingInbox();
    h = await startSlackHarness({ inbox });
    const bolt = watchBolt(h);
    inbox.failing = true;
    expect((await h.driver.send(clickBody('trigger-down'), FORM)).status).toBeGreaterThanOrEqual(500);
    expect((await h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> deploy' })).status).toBeGreaterThanOrEqual(500);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bolt.seen).toEqual([]);
    inbox.failing = false;
    expect((await h.driver.send(clickBody('trigger-down'), FORM, { retryNum: 1 })).status).toBe(200);
    await eventually(() => expect(bolt.seen).toEqual(['block_actions:trigger-down']));
    expect(h.agent.calls).toEqual([]);
  });

  it('is refused as before when it is forged, stale, too large or not a JSON object, and is neither stored nor handled', async () => {
    const inbox = recordingInbox();
    h = await startSlackHarness({ inbox });
    const bolt = watchBolt(h);
    const staleS = Math.floor(Date.now() / 1000) - 6 * 60;
    const event = JSON.stringify({
      type: 'event_callback',
      event_id: 'EvRefused',
      event: { type: 'app_mention', user: 'U1', channel: 'C1', text: '<@UBOT> x', ts: '9.1' },
    });
    const statuses = {
      forgedClick: (await h.driver.send(clickBody('trigger-forged'), FORM, { signingSecret: 'wrong-secret' })).status,
      forgedEvent: (await h.driver.send(event, 'application/json', { signingSecret: 'wrong-secret' })).status,
      staleClick: (await h.driver.send(clickBody('trigger-stale'), FORM, { timestampS: staleS })).status,
      staleEvent: (await h.driver.send(event, 'application/json', { timestampS: staleS })).status,
      cutOffEvent: (await h.driver.send(event.slice(0, -2), 'application/json')).status,
      cutOffClick: (await h.driver.send(clickBody('trigger-cut').slice(0, -6), FORM)).status,
      arrayEvent: (await h.driver.send('[]', 'application/json')).status,
      tooLarge: (await h.driver.send(`{"type":"event_callback","pad":"${'x'.repeat(1024 * 1024)}"}`, 'application/json')).status,
    };
    expect(statuses).toEqual({
      forgedClick: 401,
      forgedEvent: 401,
      staleClick: 401,
      staleEvent: 401,
      cutOffEvent: 400,
      cutOffClick: 400,
      arrayEvent: 400,
      tooLarge: 413,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(inbox.keys).toEqual([]);
    expect(bolt.seen).toEqual([]);
    expect(h.agent.calls).toEqual([]);
  });
});

describe('what the ingress leaves to Bolt', () => {
  it("answers Slack's URL verification with its challenge and an ssl_check with 200, storing neither", async () => {
    const inbox = recordingInbox();
    h = await startSlackHarness({ inbox });
    const challenge = await h.driver.send(JSON.stringify({ type: 'url_verification', token: 'legacy', challenge: 'c-123' }), 'application/json');
    expect(challenge).toEqual({ status: 200, body: { challenge: 'c-123' } });
    const sslCheck = await fetch(h.eventsUrl, { method: 'POST', headers: { 'content-type': FORM }, body: 'ssl_check=1&token=legacy' });
    expect(sslCheck.status).toBe(200);
    expect(inbox.keys).toEqual([]);
  });

  it('leaves a command to be acknowledged by its listener, once stored', async () => {
    const inbox = recordingInbox();
    h = await startSlackHarness({ inbox });
    const answer = await h.driver.command({ user: 'U1', channel: 'C1', text: 'help' });
    expect(answer.status).toBe(200);
    expect(inbox.keys).toEqual([expect.stringMatching(/^command:/)]);
  });
});

describe("the ingress in front of Bolt's receiver", () => {
  it("answers a click and an event itself, through the inbox, and hands everything else to Bolt's receiver untouched", async () => {
    const answered: string[] = [];
    const toBolt: string[] = [];
    const inbox: AnsweringInbox = {
      answerableKey: (body) => (body.type === 'block_actions' || body.type === 'event_callback' ? `key:${String(body.type)}` : undefined),
      async receiveAnswered(key, _body, retry, answer) {
        answered.push(`${key} retry=${retry.retryNum ?? '-'}`);
        answer(200);
      },
    };
    const bolt = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      toBolt.push(`${req.headers['content-type']} ${(req as { rawBody?: Buffer }).rawBody?.toString().slice(0, 24)}`);
      res.writeHead(202);
      res.end();
    };
    const server: Server = createServer(
      signedRequestListener(bolt, {
        signingSecret: SIGNING_SECRET,
        endpoints: ['/slack/events'],
        bodyLimit: 64 * 1024,
        logger: silentLogger(),
        checked: ingressAck(bolt, inbox, silentLogger()),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const driver = new SlackDriver({ eventsUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, signingSecret: SIGNING_SECRET });
      const statuses = [
        (await driver.send(clickBody('t1'), FORM, { retryNum: 2 })).status,
        (await driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> hi' })).status,
        (await driver.command({ user: 'U1', channel: 'C1', text: 'help' })).status,
        (await driver.submitView({ user: 'U1', view: { id: 'V1', callback_id: 'cb' }, values: {} })).status,
        (await driver.send('{"type":"url_verification","challenge":"c"}', 'application/json')).status,
        (await driver.send('{"type":"event_callback"', 'application/json')).status,
      ];
      expect(statuses).toEqual([200, 200, 202, 202, 202, 202]);
      expect(answered).toEqual(['key:block_actions retry=2', 'key:event_callback retry=-']);
      expect(toBolt).toEqual([
        `${FORM} token=legacy&team_id=T1&`,
        'application/json {"type":"view_submission',
        'application/json {"type":"url_verificatio',
        'application/json {"type":"event_callback"',
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
