import { webApi } from '@slack/bolt';
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

const state = async (): Promise<PageState> => (await fetch(`${workspace.url}local/state`)).json() as Promise<PageState>;

async function browserPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${workspace.url}local/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: workspace.url.replace(/\/$/, ''), ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const botClient = () => new webApi.WebClient(workspace.botToken, { slackApiUrl: workspace.slackApiUrl, retryConfig: { retries: 0 } });

describe('local workspace: page and browser API', () => {
  it('serves the page, its script and a health check on one loopback port', async () => {
    expect(workspace.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(workspace.slackApiUrl).toBe(`${workspace.url}api/`);
    const page = await fetch(workspace.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('id="composer"');
    expect(html).toContain('<script type="module" src="app.js">');
    const script = await fetch(`${workspace.url}app.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await (await fetch(`${workspace.url}healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${workspace.url}../package.json`)).status).toBe(404);
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
    expect(delivered.json).toMatchObject({ type: 'event_callback', event: { type: 'app_mention', user: 'ULOCAL', channel: 'CGENERAL', text: '<@UBOT> check health of &lt;site&gt; &amp; more', ts: posted.body.ts } });

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
    const events = await fetch(`${workspace.url}local/events`);
    const reader = events.body!.getReader();
    await reader.read(); // the greeting event
    const client = botClient();
    const plan = await client.chat.postMessage({ channel: 'CGENERAL', thread_ts: String(mention.body.ts), text: 'Plan v1', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Plan v1: deploy' } }] });
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
    const blocks = [{ type: 'actions', block_id: 'plan-actions-1', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: 'plan-approve', value: 'run_1:1' }] }];
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
      response_url: expect.stringMatching(new RegExp(`^${workspace.url}respond/`)),
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
    const plan = await botClient().chat.postMessage({ channel: 'CGENERAL', thread_ts: String(mention.body.ts), text: 'Plan', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Modify' }, action_id: 'plan-modify', value: 'v' }] }] });
    await browserPost('actions', { messageTs: plan.ts, actionId: 'plan-modify' });
    const trigger = String(receiver.received.at(-1)!.json.trigger_id);
    const modal = {
      type: 'modal' as const,
      callback_id: 'plan-modify-submit',
      private_metadata: 'run_1:1',
      title: { type: 'plain_text' as const, text: 'Modify plan v1' },
      submit: { type: 'plain_text' as const, text: 'Submit' },
      blocks: [{ type: 'input', block_id: 'plan-yaml-0', label: { type: 'plain_text', text: 'Plan (YAML)' }, element: { type: 'plain_text_input', action_id: 'yaml', multiline: true, initial_value: 'goal: deploy' } }],
    };
    const opened = await botClient().views.open({ trigger_id: trigger, view: modal as never });
    expect((await state()).modal).toMatchObject({ id: opened.view!.id, view: { title: { text: 'Modify plan v1' } }, errors: {} });

    receiver.answerWith(() => ({ status: 200, body: { response_action: 'errors', errors: { 'plan-yaml-0': 'Line 1: not a plan' } } }));
    const refused = await browserPost('views/submit', { viewId: opened.view!.id, values: { 'plan-yaml-0': 'goal: [' } });
    expect(refused.body).toEqual({ ok: true, closed: false, errors: { 'plan-yaml-0': 'Line 1: not a plan' } });
    const submission = receiver.received.at(-1)!;
    expect(submission.signatureValid).toBe(true);
    expect(submission.json).toMatchObject({ type: 'view_submission', user: { id: 'ULOCAL' }, view: { id: opened.view!.id, callback_id: 'plan-modify-submit', private_metadata: 'run_1:1', state: { values: { 'plan-yaml-0': { yaml: { value: 'goal: [' } } } } } });
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
    await fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ response_type: 'in_channel', text: 'No runs in progress.' }) });
    await fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ response_type: 'ephemeral', text: 'Your recent runs: none' }) });
    const seen = await state();
    expect(seen.messages.map((m) => [m.userName, m.text])).toEqual([['tandem', 'No runs in progress.']]);
    expect(seen.ephemerals.map((e) => e.text)).toEqual(['Your recent runs: none']);
  });

  it('refuses other web pages, other tokens, and says when the bot cannot be reached', async () => {
    workspace.connectBot(receiver.eventsUrl);
    expect((await browserPost('messages', { text: '@tandem hi' }, { origin: 'http://evil.example' })).status).toBe(403);
    const form = await fetch(`${workspace.url}local/messages`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ text: '@tandem hi' }) });
    expect(form.status).toBe(403);
    expect(receiver.received).toHaveLength(0);
    const stranger = new webApi.WebClient('xoxb-someone-else', { slackApiUrl: workspace.slackApiUrl, retryConfig: { retries: 0 } });
    await expect(stranger.chat.postMessage({ channel: 'CGENERAL', text: 'hi' })).rejects.toThrow(/invalid_auth/);

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
      const response = await fetch(`${other.url}local/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '@tandem hi' }) });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toMatch(/signature.*same signing secret/);
    } finally {
      await other.close();
    }
  });
});
