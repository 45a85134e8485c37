import fc from 'fast-check';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRequestListener } from '../../src/bot/ingress/signed-request.ts';
import { slackSignatureHeaders } from '../../src/workspace/slack-fake/signing.ts';
import { silentLogger } from '../fakes/slack-harness.ts';

const SECRET = 'signed-request-secret';
const FORM = 'application/x-www-form-urlencoded';

/** What the listener behind the check was handed: the body Bolt will parse and its content type. */
interface Passed {
  path: string;
  contentType: string | undefined;
  body: string;
}

describe('the signature check in front of Bolt', () => {
  const passed: Passed[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const next = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
      const rawBody = (req as IncomingMessage & { rawBody?: Buffer }).rawBody;
      passed.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: rawBody?.toString() ?? '(not read)' });
      res.writeHead(200);
      res.end();
    };
    server = createServer(signedRequestListener(next, { signingSecret: SECRET, endpoints: ['/slack/events'], bodyLimit: 64 * 1024, logger: silentLogger() }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (body: string, options: { contentType?: string; headers?: Record<string, string>; path?: string } = {}) => {
    passed.length = 0;
    const response = await fetch(`${url}${options.path ?? '/slack/events'}`, {
      method: 'POST',
      headers: { 'content-type': options.contentType ?? FORM, ...(options.headers ?? slackSignatureHeaders({ signingSecret: SECRET, body })) },
      body,
    });
    return { status: response.status, passed: [...passed] };
  };
  const interactive = (payload: unknown) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

  it('hands on a signed click as the JSON it carries, whatever its text (spaces, +, %, accents, emoji, quotes)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ type: fc.constant('block_actions'), text: fc.string({ unit: 'grapheme' }), value: fc.jsonValue() }), async (payload) => {
        const { status, passed } = await post(interactive(payload));
        expect(status).toBe(200);
        expect(passed).toHaveLength(1);
        expect(passed[0]!.contentType).toBe('application/json');
        expect(JSON.parse(passed[0]!.body)).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 60 },
    );
  });

  it('hands on a click whose payload bytes are raw UTF-8, not percent-encoded, with its text intact', async () => {
    const payload = { type: 'block_actions', text: 'héllo — ✓ 🚀 日本', user: { name: 'Zoë' } };
    const { status, passed } = await post(`payload=${JSON.stringify(payload)}`);
    expect(status).toBe(200);
    expect(passed.map((p) => JSON.parse(p.body))).toEqual([payload]);
  });

  it('refuses with 400, and hands on nothing, a signed body that is not a JSON object', async () => {
    const json = ['null', ' null', '[]', '"text"', '1', ''];
    for (const body of json) expect(await post(body, { contentType: 'application/json' })).toEqual({ status: 400, passed: [] });
    // Not JSON objects, a byte sequence that is not UTF-8, and malformed or cut-off escapes.
    const forms = [
      'payload=null',
      'payload=%20null',
      'payload=%5B%5D',
      'token=t&payload=null',
      'payload=%E0%7B%7D',
      'payload=%7B%zz%7D',
      'payload=%7B%7',
      'payload=%7B%',
    ];
    for (const body of forms) expect(await post(body)).toEqual({ status: 400, passed: [] });
  });

  it('hands on a signed event and a signed command as they came', async () => {
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_mention', text: 'héllo + 100%' } });
    expect((await post(event, { contentType: 'application/json' })).passed).toEqual([{ path: '/slack/events', contentType: 'application/json', body: event }]);
    const command = 'command=%2Ftandem&text=schedules+now&user_id=U1&trigger_id=t1';
    expect((await post(command)).passed).toEqual([{ path: '/slack/events', contentType: FORM, body: command }]);
    // A form with parameters in its Content-Type (what fetch sends for URLSearchParams) is a form all the same.
    for (const contentType of [`${FORM};charset=UTF-8`, 'Application/X-WWW-Form-URLEncoded; charset=utf-8'])
      expect((await post(command, { contentType })).passed).toEqual([{ path: '/slack/events', contentType: FORM, body: command }]);
    const click = { type: 'block_actions', actions: [{ action_id: 'x' }] };
    expect((await post(interactive(click), { contentType: `${FORM}; charset=UTF-8` })).passed.map((p) => [p.contentType, JSON.parse(p.body)])).toEqual([
      ['application/json', click],
    ]);
  });

  it('refuses with 401, and hands on nothing, a request with a bad, missing or malformed signature, or one dated over 5 minutes from now either way', async () => {
    const body = interactive({ type: 'block_actions', actions: [{ action_id: 'plan_approve' }] });
    const signed = slackSignatureHeaders({ signingSecret: SECRET, body });
    const refusals = [
      slackSignatureHeaders({ signingSecret: 'another-secret', body }),
      slackSignatureHeaders({ signingSecret: SECRET, body: `${body}&extra=1` }),
      slackSignatureHeaders({ signingSecret: SECRET, body, timestampS: Math.floor(Date.now() / 1000) - 6 * 60 }),
      slackSignatureHeaders({ signingSecret: SECRET, body, timestampS: Math.floor(Date.now() / 1000) + 6 * 60 }),
      { 'x-slack-request-timestamp': signed['x-slack-request-timestamp']! },
      { 'x-slack-signature': signed['x-slack-signature']! },
      { ...signed, 'x-slack-request-timestamp': `${signed['x-slack-request-timestamp']}.5` },
      { ...signed, 'x-slack-signature': signed['x-slack-signature']!.slice(0, -2) },
      {},
    ];
    for (const headers of refusals) expect(await post(body, { headers })).toEqual({ status: 401, passed: [] });
  });

  it("answers Slack's unsigned ssl_check, stripped of anything smuggled beside it", async () => {
    const smuggled = `ssl_check=1&payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions' }))}`;
    expect((await post(smuggled, { headers: {} })).passed.map((p) => p.body)).toEqual(['ssl_check=1']);
  });

  it('refuses a body over the limit with 413 without handing it on', async () => {
    expect(await post(interactive({ type: 'block_actions', text: 'x'.repeat(70 * 1024) }))).toEqual({ status: 413, passed: [] });
  });

  it('answers 500 when the listener behind it throws, and keeps serving', async () => {
    const throwing = createServer(
      signedRequestListener(
        () => {
          throw new Error('listener broke');
        },
        { signingSecret: SECRET, endpoints: ['/slack/events'], bodyLimit: 1024, logger: silentLogger() },
      ),
    );
    await new Promise<void>((resolve) => throwing.listen(0, '127.0.0.1', resolve));
    const body = JSON.stringify({ type: 'event_callback', event_id: 'Ev2' });
    const send = () =>
      fetch(`http://127.0.0.1:${(throwing.address() as AddressInfo).port}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...slackSignatureHeaders({ signingSecret: SECRET, body }) },
        body,
      });
    try {
      expect((await send()).status).toBe(500);
      expect((await send()).status).toBe(500);
    } finally {
      await new Promise<void>((resolve) => throwing.close(() => resolve()));
    }
  });

  it('leaves every other route to the listener behind it, body unread', async () => {
    expect((await post('{}', { path: '/metrics', headers: {} })).passed).toEqual([{ path: '/metrics', contentType: FORM, body: '(not read)' }]);
  });
});
