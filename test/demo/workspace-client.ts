/**
 * The local workspace's browser API as the page uses it (the key's cookie, JSON posts), for the demo's
 * tasks that a browser need not drive. It reads the same GET /local/state the page draws.
 */
import type { PageState } from '../../src/workspace/local/browser-state.ts';

type Message = PageState['messages'][number];
export type Reply = Message['replies'][number] | PageState['ephemerals'][number];

export interface FoundButton {
  messageTs: string;
  actionId: string;
  blockId: string | undefined;
}

/** Every button in a message's blocks, with the block it sits in (actions elements and section accessories). */
function buttonsIn(blocks: unknown[] | null): { label: string; actionId: string; blockId: string | undefined }[] {
  const found: { label: string; actionId: string; blockId: string | undefined }[] = [];
  for (const block of (blocks ?? []) as { block_id?: string; elements?: unknown[]; accessory?: unknown }[]) {
    for (const element of [...(block.elements ?? []), block.accessory] as { type?: string; text?: { text?: string }; action_id?: string }[]) {
      if (element?.type === 'button' && element.action_id)
        found.push({ label: element.text?.text ?? '', actionId: element.action_id, blockId: block.block_id });
    }
  }
  return found;
}

export class WorkspaceClient {
  private readonly origin: string;
  private readonly cookie: string;

  constructor(url: string) {
    const parsed = new URL(url);
    this.origin = parsed.origin;
    this.cookie = `tandem_local_${parsed.port}=${parsed.searchParams.get('k')}`;
  }

  async state(): Promise<PageState> {
    const response = await fetch(`${this.origin}/local/state`, { headers: { cookie: this.cookie } });
    return (await response.json()) as PageState;
  }

  async post(path: string, body: unknown): Promise<{ ok: boolean; ts?: string; error?: string }> {
    const response = await fetch(`${this.origin}${path}`, {
      method: 'POST',
      headers: { cookie: this.cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { ok: boolean; ts?: string; error?: string };
  }

  async say(text: string, threadTs?: string): Promise<string> {
    const answer = await this.post('/local/messages', { text, ...(threadTs ? { threadTs } : {}) });
    if (!answer.ok) throw new Error(`posting "${text}" failed: ${answer.error}`);
    return answer.ts ?? '';
  }

  actAs(id: string) {
    return this.post('/local/people/current', { id });
  }

  async thread(ts: string): Promise<Reply[]> {
    const state = await this.state();
    const parent = state.messages.find((message) => message.ts === ts);
    const mine = state.ephemerals.filter((ephemeral) => ephemeral.threadTs === ts);
    return [...(parent?.replies ?? []), ...mine];
  }

  /** Waits (polling the state) until a reply of the thread matches; returns it. */
  async waitForReply(ts: string, match: (reply: Reply) => boolean, what: string, timeoutMs = 20_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.thread(ts)).filter(match).at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the thread has: ${(await this.thread(ts)).map((r) => r.text).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  waitForText(ts: string, pattern: RegExp, timeoutMs?: number): Promise<Reply> {
    return this.waitForReply(ts, (reply) => pattern.test(`${reply.text} ${JSON.stringify(reply.blocks ?? [])}`), String(pattern), timeoutMs);
  }

  /** The newest message of the thread that carries a button with this label. */
  async waitForButton(ts: string, label: string): Promise<FoundButton> {
    const reply = await this.waitForReply(ts, (r) => 'user' in r && buttonsIn(r.blocks).some((b) => b.label === label), `a ${label} button`);
    const button = buttonsIn(reply.blocks).find((b) => b.label === label)!;
    return { messageTs: reply.ts, actionId: button.actionId, blockId: button.blockId };
  }

  async click(ts: string, label: string): Promise<void> {
    const button = await this.waitForButton(ts, label);
    const answer = await this.post('/local/actions', {
      messageTs: button.messageTs,
      actionId: button.actionId,
      ...(button.blockId ? { blockId: button.blockId } : {}),
    });
    if (!answer.ok) throw new Error(`clicking ${label} failed: ${answer.error}`);
  }
}
