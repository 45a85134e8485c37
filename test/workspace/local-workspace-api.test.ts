import { webApi } from '@slack/bolt';
import { request } from 'node:http';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PageState } from '../../src/workspace/local/browser-state.ts';
import { startLocalWorkspace, type LocalWorkspace } from '../../src/workspace/local/local-workspace.ts';
import { startBotReceiver } from './bot-receiver.ts';

const SECRET = 'local-test-secret';
let workspace: LocalWorkspace;
let receiver: Awaited<ReturnType<typeof startBotReceiver>>;

beforeEach(async () => {
  workspace = await startLocalWorkspace({ signingSecret: SECRET, logger: pino({ level: 'silent' }) });
  receiver = await startBotReceiver(SECRET);
});

afterEach(async () => {
  await workspace.close();
  await receiver.close();
});

/** A path on the workspace with the key from its printed address, as the page's own requests carry it. */
function keyed(path: string, on: LocalWorkspace = workspace): string {
  const url = new URL(path, on.url);
  url.searchParams.set('k', new URL(on.url).searchParams.get('k')!);
  return url.href;
}

const state = async (): Promise<PageState> => (await fetch(keyed('/local/state'))).json() as Promise<PageState>;

async function browserPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(keyed(`/local/${path}`), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: workspace.origin, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A request as curl would send it: every header as given, `Host` included. */
function rawRequest(input: { method: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  const { port } = new URL(workspace.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: input.method, path: input.path, headers: { host: `127.0.0.1:${port}`, ...input.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(input.body);
  });
}

const botClient = () => new webApi.WebClient(workspace.botToken, { slackApiUrl: workspace.slackApiUrl, retryConfig: { retries: 0 } });

describe('local workspace: page and browser API', () => {
  it('serves the page, its script and a health check on one loopback port', async () => {
    expect(workspace.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=[\w-]{32}$/);
    expect(workspace.slackApiUrl).toBe(`${workspace.origin}/api/`);
    const page = await fetch(workspace.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('set-cookie')).toMatch(/^tandem_local_\d+=[\w-]{32}; Path=\/; HttpOnly; SameSite=Strict$/);
    const html = await page.text();
    expect(html).toContain('id="composer"');
    expect(html).toContain('<script type="module" src="app.js">');
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const script = await fetch(`${workspace.origin}/app.js`, { headers: { cookie } });
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await (await fetch(`${workspace.origin}/healthz`, { headers: { cookie } })).json()).toEqual({ ok: true });
    expect((await fetch(keyed('/../package.json'))).status).toBe(404);
  });

  it('says the bot is not connected and delivers nothing until connectBot', async () => {
    expect(await state()).toMatchObject({ connected: false, channel: { name: 'general' }, me: { name: 'you' }, messages: [] });
    const answer = await browserPost('messages', { text: '@tandem check health of http://127.0.0.1:1/healthz' });
    expect(answer.status).toBe(503);
    expect(String(answer.body.error)).toMatch(/not connected/);
    expect(receiver.received).toHaveLength(0);
    workspace.connectBot(receiver.eventsUrl);
    expect((await state()).connected).toBe(true);
  });

  it('turns "@tandem …" into a signed app_mention, in the channel and in a thread', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const posted = await browserPost('messages', { text: '@tandem check health of <site> & more' });
    expect(posted.body).toMatchObject({ ok: true, ts: expect.any(String) });
    const delivered = receiver.received[0]!;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.json).toMatchObject({
      type: 'event_callback',
      event: { type: 'app_mention', user: 'ULOCAL', channel: 'CGENERAL', text: '<@UBOT> check health of &lt;site&gt; &amp; more', ts: posted.body.ts },
    });

    await browserPost('messages', { text: 'cancel please @tandem', threadTs: posted.body.ts });
    expect(receiver.received[1]!.json).toMatchObject({ event: { type: 'app_mention', thread_ts: posted.body.ts, text: 'cancel please <@UBOT>' } });

    await browserPost('messages', { text: 'just chatting' });
    expect(receiver.received).toHaveLength(2);
    const seen = await state();
    expect(seen.messages.map((m) => [m.userName, m.text])).toEqual([
      ['you', '<@UBOT> check health of &lt;site&gt; &amp; more'],
      ['you', 'just chatting'],
    ]);
    expect(seen.messages[0]!.replies.map((m) => m.text)).toEqual(['cancel please <@UBOT>']);
  });

  it('shows what the bot posts and edits, and pushes a change event to open pages', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const mention = await browserPost('messages', { text: '@tandem deploy' });
    const events = await fetch(keyed('/local/events'));
    const reader = events.body!.getReader();
    await reader.read(); // the greeting event
    const client = botClient();
    const plan = await client.chat.postMessage({
      channel: 'CGENERAL',
      thread_ts: String(mention.body.ts),
      text: 'Plan v1',
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Plan v1: deploy' } }],
    });
    const next = new TextDecoder().decode((await reader.read()).value);
    expect(next).toMatch(/^event: change\ndata: \d+/);
    await reader.cancel();
    await client.chat.update({ channel: 'CGENERAL', ts: plan.ts!, text: 'Plan v1 (edited)' });
    await client.chat.postEphemeral({ channel: 'CGENERAL', user: 'ULOCAL', thread_ts: String(mention.body.ts), text: 'Only you can approve this.' });
    const seen = await state();
    expect(seen.messages[0]!.replies[0]).toMatchObject({ userName: 'tandem', isBot: true, text: 'Plan v1 (edited)', edited: true });
    expect(seen.ephemerals).toEqual([expect.objectContaining({ text: 'Only you can approve this.', threadTs: mention.body.ts })]);
  });

  it('sends a button click as signed block_actions carrying the message, a trigger id and a response URL', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const mention = await browserPost('messages', { text: '@tandem deploy' });
    const blocks = [
      {
        type: 'actions',
        block_id: 'plan-actions-1',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: 'plan-approve', value: 'run_1:1' }],
      },
    ];
    const plan = await botClient().chat.postMessage({ channel: 'CGENERAL', thread_ts: String(mention.body.ts), text: 'Plan v1', blocks });
    const clicked = await browserPost('actions', { messageTs: plan.ts, actionId: 'plan-approve', blockId: 'plan-actions-1', value: 'run_1:1' });
    expect(clicked.body).toEqual({ ok: true });
    const delivered = receiver.received.at(-1)!;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(delivered.json).toMatchObject({
      type: 'block_actions',
      user: { id: 'ULOCAL' },
      trigger_id: expect.any(String),
      response_url: expect.stringMatching(new RegExp(`^${workspace.origin}/respond/`)),
      container: { channel_id: 'CGENERAL', message_ts: plan.ts, thread_ts: mention.body.ts },
      message: { ts: plan.ts, text: 'Plan v1', blocks },
      actions: [{ action_id: 'plan-approve', value: 'run_1:1', block_id: 'plan-actions-1' }],
    });
    const stale = await browserPost('actions', { messageTs: plan.ts, actionId: 'not-on-the-message' });
    expect(stale.status).toBe(404);
  });

  it('opens the modal the bot asks for, keeps it open with field errors, closes it on a plain ack', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const mention = await browserPost('messages', { text: '@tandem deploy' });
    const plan = await botClient().chat.postMessage({
      channel: 'CGENERAL',
      thread_ts: String(mention.body.ts),
      text: 'Plan',
      blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Modify' }, action_id: 'plan-modify', value: 'v' }] }],
    });
    await browserPost('actions', { messageTs: plan.ts, actionId: 'plan-modify' });
    const trigger = String(receiver.received.at(-1)!.json.trigger_id);
    const modal = {
      type: 'modal' as const,
      callback_id: 'plan-modify-submit',
      private_metadata: 'run_1:1',
      title: { type: 'plain_text' as const, text: 'Modify plan v1' },
      submit: { type: 'plain_text' as const, text: 'Submit' },
      blocks: [
        {
          type: 'input',
          block_id: 'plan-yaml-0',
          label: { type: 'plain_text', text: 'Plan (YAML)' },
          element: { type: 'plain_text_input', action_id: 'yaml', multiline: true, initial_value: 'goal: deploy' },
        },
      ],
    };
    const opened = await botClient().views.open({ trigger_id: trigger, view: modal as never });
    expect((await state()).modal).toMatchObject({ id: opened.view!.id, view: { title: { text: 'Modify plan v1' } }, errors: {} });

    receiver.answerWith(() => ({ status: 200, body: { response_action: 'errors', errors: { 'plan-yaml-0': 'Line 1: not a plan' } } }));
    const refused = await browserPost('views/submit', { viewId: opened.view!.id, values: { 'plan-yaml-0': 'goal: [' } });
    expect(refused.body).toEqual({ ok: true, closed: false, errors: { 'plan-yaml-0': 'Line 1: not a plan' } });
    const submission = receiver.received.at(-1)!;
    expect(submission.signatureValid).toBe(true);
    expect(submission.json).toMatchObject({
      type: 'view_submission',
      user: { id: 'ULOCAL' },
      view: {
        id: opened.view!.id,
        callback_id: 'plan-modify-submit',
        private_metadata: 'run_1:1',
        state: { values: { 'plan-yaml-0': { yaml: { value: 'goal: [' } } } },
      },
    });
    expect((await state()).modal?.errors).toEqual({ 'plan-yaml-0': 'Line 1: not a plan' });

    receiver.answerWith(() => ({ status: 200 }));
    const accepted = await browserPost('views/submit', { viewId: opened.view!.id, values: { 'plan-yaml-0': 'goal: deploy now' } });
    expect(accepted.body).toMatchObject({ ok: true, closed: true });
    expect((await state()).modal).toBeNull();
  });

  it('sends /tandem as a signed slash command and shows the answers posted to its response URL', async () => {
    workspace.connectBot(receiver.eventsUrl);
    await browserPost('messages', { text: '/tandem status' });
    const command = receiver.received.at(-1)!;
    expect(command.signatureValid).toBe(true);
    expect(command.json).toMatchObject({ command: '/tandem', text: 'status', user_id: 'ULOCAL', channel_id: 'CGENERAL' });
    const responseUrl = String(command.json.response_url);
    await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'in_channel', text: 'No runs in progress.' }),
    });
    await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', text: 'Your recent runs: none' }),
    });
    const seen = await state();
    expect(seen.messages.map((m) => [m.userName, m.text])).toEqual([['tandem', 'No runs in progress.']]);
    expect(seen.ephemerals.map((e) => e.text)).toEqual(['Your recent runs: none']);
  });

  it('refuses other web pages, other tokens, and says when the bot cannot be reached', async () => {
    workspace.connectBot(receiver.eventsUrl);
    expect((await browserPost('messages', { text: '@tandem hi' }, { origin: 'http://evil.example' })).status).toBe(403);
    const form = await fetch(`${workspace.origin}/local/messages`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ text: '@tandem hi' }),
    });
    expect(form.status).toBe(403);
    expect(receiver.received).toHaveLength(0);
    const stranger = new webApi.WebClient('xoxb-someone-else', { slackApiUrl: workspace.slackApiUrl, retryConfig: { retries: 0 } });
    await expect(stranger.chat.postMessage({ channel: 'CGENERAL', text: 'hi' })).rejects.toThrow(/statusCode = 403/);

    await receiver.close();
    const down = await browserPost('messages', { text: '@tandem hi' });
    expect(down.status).toBe(503);
    expect(String(down.body.error)).toMatch(/Could not reach the bot at http:\/\/127\.0\.0\.1:\d+\/slack\/events/);
    expect((await state()).notice).toMatch(/Could not reach the bot/);
  });

  it('says so when the bot refuses the signature', async () => {
    workspace.connectBot(receiver.eventsUrl);
    receiver.answerWith((request) => ({ status: request.signatureValid ? 200 : 401 }));
    const other = await startLocalWorkspace({ signingSecret: 'a-different-secret', logger: pino({ level: 'silent' }) });
    try {
      other.connectBot(receiver.eventsUrl);
      const response = await fetch(keyed('/local/messages', other), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: '@tandem hi' }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toMatch(/signature.*same signing secret/);
    } finally {
      await other.close();
    }
  });

  it('refuses every route without the key (or, for the bot, its token or response URL) with 403 and a one-line reason, and changes nothing', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const before = await state();
    const attempts: { method: string; path: string; headers?: Record<string, string>; body?: string }[] = [
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/app.js' },
      { method: 'GET', path: '/healthz' },
      { method: 'GET', path: '/local/state' },
      { method: 'GET', path: '/local/events' },
      { method: 'GET', path: '/local/state?k=not-the-key' },
      { method: 'POST', path: '/local/messages', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '@tandem deploy' }) },
      {
        method: 'POST',
        path: '/local/messages',
        headers: { 'content-type': 'application/json', cookie: 'tandem_local_1=guess' },
        body: JSON.stringify({ text: 'hello' }),
      },
    ];
    const json = { 'content-type': 'application/json' };
    const forBot = [
      { method: 'POST', path: '/api/chat.postMessage', headers: json, body: JSON.stringify({ channel: 'CGENERAL', text: 'injected' }) },
      {
        method: 'POST',
        path: '/api/chat.postMessage',
        headers: { ...json, authorization: 'Bearer xoxb-guess' },
        body: JSON.stringify({ channel: 'CGENERAL', text: 'injected' }),
      },
      { method: 'POST', path: '/respond/x', headers: json, body: JSON.stringify({ response_type: 'in_channel', text: 'injected' }) },
    ];
    for (const attempt of [...attempts, ...forBot]) {
      const answer = await rawRequest(attempt);
      expect(answer.status, `${attempt.method} ${attempt.path}`).toBe(403);
      const error = (JSON.parse(answer.body) as { error: string }).error;
      expect(error).toMatch(attempts.includes(attempt) ? /does not carry the local workspace key/ : /bot token made at start-up|not a response URL/);
      expect(error).not.toContain('\n');
    }
    expect(receiver.received).toHaveLength(0);
    expect(await state()).toEqual(before);
  });

  it('refuses a rebound host name and another site on every route, the Web API and response URLs included', async () => {
    workspace.connectBot(receiver.eventsUrl);
    await browserPost('messages', { text: 'a message only the page may read' });
    const key = new URL(workspace.url).searchParams.get('k')!;
    const rebound = await rawRequest({ method: 'GET', path: `/local/state?k=${key}`, headers: { host: `rebind.evil.example:${new URL(workspace.url).port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/is not the local workspace's address/);
    expect(rebound.body).not.toContain('a message only the page may read');
    const api = await rawRequest({
      method: 'POST',
      path: '/api/chat.postMessage',
      headers: { host: 'rebind.evil.example', authorization: `Bearer ${workspace.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'CGENERAL', text: 'injected' }),
    });
    expect(api.status).toBe(403);
    const crossSite = await rawRequest({
      method: 'POST',
      path: `/local/messages?k=${key}`,
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ text: '@tandem deploy' }),
    });
    expect(crossSite.status).toBe(403);
    expect(receiver.received).toHaveLength(0);
    expect((await state()).messages.map((m) => m.text)).toEqual(['a message only the page may read']);
  });

  it('takes no bot message at a response URL it did not hand out, nor from another site, nor as text/plain', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const forged = JSON.stringify({
      response_type: 'in_channel',
      text: 'Plan v1',
      blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'plan-approve', value: 'run_1:1' }] }],
    });
    const fromEvil = await rawRequest({
      method: 'POST',
      path: '/respond/x',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: forged,
    });
    expect(fromEvil.status).toBe(403);
    const madeUp = await rawRequest({ method: 'POST', path: `/respond/${crypto.randomUUID()}`, headers: { 'content-type': 'application/json' }, body: forged });
    expect(madeUp.status).toBe(403);
    expect(madeUp.body).toMatch(/not a response URL this workspace handed to the bot/);
    await browserPost('messages', { text: '/tandem status' });
    const issued = new URL(String(receiver.received.at(-1)!.json.response_url));
    const asText = await rawRequest({ method: 'POST', path: issued.pathname, headers: { 'content-type': 'text/plain' }, body: forged });
    expect(asText.status).toBe(415);
    const seen = await state();
    expect(seen.messages).toEqual([]);
    expect(seen.ephemerals).toEqual([]);
  });

  it('clicks only a button the bot posted, and sends the bot the value stored on it, not the one in the request', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const mention = await browserPost('messages', { text: '@tandem deploy' });
    const blocks = [
      {
        type: 'actions',
        block_id: 'plan-actions-1',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'plan-approve', value: 'run_1:1' }],
      },
    ];
    const plan = await botClient().chat.postMessage({ channel: 'CGENERAL', thread_ts: String(mention.body.ts), text: 'Plan v1', blocks });
    const sent = receiver.received.length;
    const forged = await browserPost('actions', { messageTs: plan.ts, actionId: 'plan-approve', blockId: 'plan-actions-1', value: 'run_2:1' });
    expect(forged.body).toEqual({ ok: true });
    expect(receiver.received.at(-1)!.json).toMatchObject({ actions: [{ action_id: 'plan-approve', block_id: 'plan-actions-1', value: 'run_1:1' }] });
    // The person's own message has no buttons, and a block id that is not on the message names none.
    expect((await browserPost('actions', { messageTs: mention.body.ts, actionId: 'plan-approve' })).status).toBe(404);
    expect((await browserPost('actions', { messageTs: plan.ts, actionId: 'plan-approve', blockId: 'other-block' })).status).toBe(404);
    expect(receiver.received).toHaveLength(sent + 1);
  });

  it('answers an oversized body with 413 and reads no more of it', async () => {
    workspace.connectBot(receiver.eventsUrl);
    const huge = await browserPost('messages', { text: 'x'.repeat(2_000_000) });
    expect(huge.status).toBe(413);
    expect(receiver.received).toHaveLength(0);
    expect(huge.body.error).toBe('The request body is over 1000000 bytes.');
    const api = await fetch(workspace.slackApiUrl + 'chat.postMessage', {
      method: 'POST',
      headers: { authorization: `Bearer ${workspace.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'CGENERAL', text: 'y'.repeat(1_100_000) }),
    });
    expect(api.status).toBe(413);
    expect((await state()).messages).toEqual([]);
  });
});
