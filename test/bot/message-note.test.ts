import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'node:querystring';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_BLOCK_ID, withMessageNote } from '../../src/bot/surface/message-note.ts';

const NOTE = 'Demo — nothing leaves this machine.';

/** A loopback server standing in for Slack's Web API and a response_url: it keeps each request's body. */
function recordingServer() {
  const received: { path: string; body: Record<string, unknown> }[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const json = request.headers['content-type']?.startsWith('application/json');
      received.push({ path: request.url ?? '', body: json ? (JSON.parse(raw) as Record<string, unknown>) : (parse(raw) as Record<string, unknown>) });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, ts: '1.000001', channel: 'C1' }));
    });
  });
  return { server, received };
}

const blocksOf = (body: Record<string, unknown>) => JSON.parse(String(body.blocks)) as { type: string; block_id?: string }[];
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

describe('the message note (the demo says so in every message it posts)', () => {
  const { server, received } = recordingServer();
  let origin: string;
  let client: InstanceType<typeof webApi.WebClient>;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: `${origin}/api/`, fetch: withMessageNote(NOTE), retryConfig: { retries: 0 } });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const last = () => received.at(-1)!.body;

  it('ends a message with blocks with a context block holding the note', async () => {
    await client.chat.postMessage({ channel: 'C1', text: 'Plan', blocks: [section('Plan v1')] });
    const blocks = blocksOf(last());
    expect(blocks).toHaveLength(2);
    expect(blocks[1]).toEqual({ type: 'context', block_id: NOTE_BLOCK_ID, elements: [{ type: 'mrkdwn', text: NOTE }] });
    expect(last().text).toBe('Plan');
  });

  it('keeps one note when a message is rewritten from its own blocks (which already carry it)', async () => {
    await client.chat.postMessage({ channel: 'C1', text: 'Plan', blocks: [section('Plan v1')] });
    const posted = blocksOf(last());
    await client.chat.update({ channel: 'C1', ts: '1.000001', text: 'Plan', blocks: [...posted, section('Approved by @alex')] as never });
    const updated = blocksOf(last());
    expect(updated.filter((block) => block.block_id === NOTE_BLOCK_ID)).toHaveLength(1);
    expect(updated.at(-1)!.block_id).toBe(NOTE_BLOCK_ID);
  });

  it('adds the note as a line to a text-only message, ephemeral ones too, once', async () => {
    await client.chat.postEphemeral({ channel: 'C1', user: 'U1', text: 'Only approvers may approve.' });
    expect(last().text).toBe(`Only approvers may approve.\n_${NOTE}_`);
    expect(last().blocks).toBeUndefined();
    await client.chat.update({ channel: 'C1', ts: '1.000001', text: `Stopped.\n_${NOTE}_` });
    expect(last().text).toBe(`Stopped.\n_${NOTE}_`);
  });

  it('puts the note in the text of a message already at the 50 blocks Slack allows', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => section(`line ${i}`));
    await client.chat.postMessage({ channel: 'C1', text: 'Big', blocks: fifty });
    expect(blocksOf(last())).toHaveLength(50);
    expect(last().text).toBe(`Big\n_${NOTE}_`);
  });

  it('notes an answer sent to a response_url (a slash command), and leaves other calls alone', async () => {
    const respond = withMessageNote(NOTE);
    await respond(`${origin}/respond/abc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', text: 'Runs in progress', blocks: [section('Runs in progress')] }),
    });
    expect(received.at(-1)!.path).toBe('/respond/abc');
    expect((last().blocks as { block_id?: string }[]).at(-1)!.block_id).toBe(NOTE_BLOCK_ID);
    await respond(`${origin}/respond/abc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ delete_original: true }),
    });
    expect(last()).toEqual({ delete_original: true });

    await client.views.open({ trigger_id: 't', view: { type: 'modal', title: { type: 'plain_text', text: 'Answer' }, blocks: [section('Which?')] } });
    expect(String(last().view)).not.toContain(NOTE);
    await client.conversations.history({ channel: 'C1' });
    expect(received.at(-1)!.path).toBe('/api/conversations.history');
  });
});
