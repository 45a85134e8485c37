import { webApi } from '@slack/bolt';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PageState } from '../../src/workspace/local/browser-state.ts';
import { startLocalWorkspace, type LocalWorkspace } from '../../src/workspace/local/local-workspace.ts';
import { startBotReceiver } from './bot-receiver.ts';

/** The local workspace's DM, Slack's agent surfaces and feedback buttons, seen from the bot's side of the wire. */
const SECRET = 'local-surfaces-secret';
let workspace: LocalWorkspace;
let receiver: Awaited<ReturnType<typeof startBotReceiver>>;

beforeEach(async () => {
  workspace = await startLocalWorkspace({ signingSecret: SECRET, logger: pino({ level: 'silent' }) });
  receiver = await startBotReceiver(SECRET);
  workspace.connectBot(receiver.eventsUrl);
});

afterEach(async () => {
  await workspace.close();
  await receiver.close();
});

function keyed(path: string): string {
  const url = new URL(path, workspace.url);
  url.searchParams.set('k', new URL(workspace.url).searchParams.get('k')!);
  return url.href;
}

const state = async (): Promise<PageState> => (await fetch(keyed('/local/state'))).json() as Promise<PageState>;

async function browserPost(path: string, body: unknown) {
  const response = await fetch(keyed(`/local/${path}`), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: workspace.origin },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const bot = () => new webApi.WebClient(workspace.botToken, { slackApiUrl: workspace.slackApiUrl, retryConfig: { retries: 0 } });

describe('local workspace: the DM with the bot', () => {
  it('sends every DM to the bot as message.im (no mention needed), in the thread too; /tandem stays in #general', async () => {
    const posted = await browserPost('messages', { channel: 'DLOCAL', text: 'check health of <site>' });
    expect(posted.body).toMatchObject({ ok: true, ts: expect.any(String) });
    expect(receiver.received[0]!.signatureValid).toBe(true);
    expect(receiver.received[0]!.json).toMatchObject({
      event: { type: 'message', channel_type: 'im', channel: 'DLOCAL', user: 'ULOCAL', text: 'check health of &lt;site&gt;', ts: posted.body.ts },
    });
    await browserPost('messages', { channel: 'DLOCAL', text: 'cancel', threadTs: posted.body.ts });
    expect(receiver.received[1]!.json).toMatchObject({ event: { type: 'message', channel: 'DLOCAL', thread_ts: posted.body.ts, text: 'cancel' } });

    const command = await browserPost('messages', { channel: 'DLOCAL', text: '/tandem help' });
    expect(command).toEqual({ status: 400, body: { ok: false, error: 'In the local workspace /tandem works in #general.' } });
    // A thread of #general is not a thread of the DM.
    const general = await browserPost('messages', { text: 'hello' });
    expect((await browserPost('messages', { channel: 'DLOCAL', text: 'x', threadTs: general.body.ts })).status).toBe(404);
    expect(receiver.received).toHaveLength(2);

    await bot().chat.postMessage({ channel: 'DLOCAL', thread_ts: String(posted.body.ts), text: 'Plan v1' });
    const seen = await state();
    expect(seen.dm).toEqual({ id: 'DLOCAL', name: 'tandem' });
    const dm = seen.messages.filter((m) => m.channel === 'DLOCAL');
    expect(dm.map((m) => [m.text, m.replies.map((r) => r.text)])).toEqual([['check health of &lt;site&gt;', ['cancel', 'Plan v1']]]);
  });
});

describe("local workspace: Slack's feedback buttons", () => {
  const summaryBlocks = [
    { type: 'section', text: { type: 'mrkdwn', text: 'Done' } },
    {
      type: 'context_actions',
      block_id: 'summary-feedback',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: 'run-feedback',
          positive_button: { text: { type: 'plain_text', text: 'Good' }, value: 'good:run_1' },
          negative_button: { text: { type: 'plain_text', text: 'Bad' }, value: 'bad:run_1' },
        },
      ],
    },
  ];

  it('sends a thumb click as Slack does (block_actions of type feedback_buttons with the stored value), in the DM too', async () => {
    const asked = await browserPost('messages', { channel: 'DLOCAL', text: 'do it' });
    const summary = await bot().chat.postMessage({ channel: 'DLOCAL', thread_ts: String(asked.body.ts), text: 'Done', blocks: summaryBlocks });
    const clicked = await browserPost('actions', {
      messageTs: summary.ts,
      actionId: 'run-feedback',
      blockId: 'summary-feedback',
      feedback: 'negative',
      value: 'good:run_2',
    });
    expect(clicked.body).toEqual({ ok: true });
    const delivered = receiver.received.at(-1)!;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.json).toMatchObject({
      type: 'block_actions',
      user: { id: 'ULOCAL' },
      container: { channel_id: 'DLOCAL', message_ts: summary.ts, thread_ts: asked.body.ts },
      actions: [
        { type: 'feedback_buttons', action_id: 'run-feedback', block_id: 'summary-feedback', value: 'bad:run_1', text: { type: 'plain_text', text: 'Bad' } },
      ],
    });
    // Without naming a thumb it is no button at all; nor is a thumb of another block.
    expect((await browserPost('actions', { messageTs: summary.ts, actionId: 'run-feedback' })).status).toBe(404);
    expect((await browserPost('actions', { messageTs: summary.ts, actionId: 'run-feedback', blockId: 'other', feedback: 'positive' })).status).toBe(404);
  });
});

describe("local workspace: Slack's agent surfaces on a thread", () => {
  it('shows the status line and the session; Stop sends agent_session_stopped only while the session is processing', async () => {
    const asked = await browserPost('messages', { text: '@tandem deploy' });
    const threadTs = String(asked.body.ts);
    const client = bot();
    await client.assistant.threads.setStatus({ channel_id: 'CGENERAL', thread_ts: threadTs, status: 'is planning…' });
    await client.agents.sessions.setStatus({ channel_id: 'CGENERAL', thread_ts: threadTs, status: 'processing' });
    const surfaces = async () => (await state()).messages.find((m) => m.ts === threadTs)!.surfaces;
    expect(await surfaces()).toEqual({ status: 'is planning…', session: 'processing' });

    const sent = receiver.received.length;
    expect((await browserPost('sessions/stop', { channel: 'CGENERAL', threadTs })).body).toEqual({ ok: true });
    expect(receiver.received).toHaveLength(sent + 1);
    expect(receiver.received.at(-1)!.json).toMatchObject({
      type: 'event_callback',
      event: { type: 'agent_session_stopped', channel: 'CGENERAL', user: 'ULOCAL', thread_ts: threadTs },
    });

    // The bot's next message clears the status line, as Slack does; a closed session offers no Stop.
    await client.chat.postMessage({ channel: 'CGENERAL', thread_ts: threadTs, text: 'Cancelled' });
    await client.agents.sessions.setStatus({ channel_id: 'CGENERAL', thread_ts: threadTs, status: 'closed' });
    expect(await surfaces()).toEqual({ status: null, session: 'closed' });
    expect((await browserPost('sessions/stop', { channel: 'CGENERAL', threadTs })).status).toBe(409);
    expect(receiver.received).toHaveLength(sent + 1);
  });
});
