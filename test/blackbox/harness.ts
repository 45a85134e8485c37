/**
 * Black-box harness: runs `node bin/tandem.js start` as an operator would, with only the documented
 * variables, against fake Slack, OpenAI and GitHub servers on 127.0.0.1. Expectations in the tests
 * come from the product's documented behaviour alone; nothing here imports product code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SlackDriver, SlackFakeServer, type DriverResponse, type FakeMessage, type SendOptions } from '../../src/workspace/slack-fake/index.ts';
import { runTandem, type TandemProcess } from '../cli/tandem-process.ts';
import { openProcessStore } from '../helpers/database.ts';
import { untilIdle } from '../helpers/until-idle.ts';

export const BOT_TOKEN = 'xoxb-blackbox-0000-secret-token';
export const SIGNING_SECRET = 'blackbox-signing-secret-value';
export const OPENAI_KEY = 'sk-blackbox-secret-key-0000000000';
export const GITHUB_TOKEN = 'ghp_blackboxsecrettoken0000000000000';

/** A driver that times every HTTP answer Tandem gives, for the 3 s promise. */
export class TimedDriver extends SlackDriver {
  readonly timings: { ms: number; status: number }[] = [];

  override async send(body: string, contentType: string, options: SendOptions = {}): Promise<DriverResponse> {
    const started = Date.now();
    const response = await super.send(body, contentType, options);
    this.timings.push({ ms: Date.now() - started, status: response.status });
    return response;
  }
}

/** A temp working directory and a fresh store: PostgreSQL when TEST_DATABASE_URL is set, else PGlite under DATA_DIR. */
export async function freshStore(): Promise<{ cwd: string; env: Record<string, string>; cleanup(): Promise<void> }> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-blackbox-'));
  const { env, database } = await openProcessStore(path.join(cwd, 'data'));
  return {
    cwd,
    env,
    async cleanup() {
      await database?.destroy();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

export interface Running {
  tandem: TandemProcess;
  port: number;
  baseUrl: string;
  driver: TimedDriver;
  /** Resolves once the process has nothing left to do on its own: "nothing more happens" is then asserted (test/helpers/until-idle.ts). */
  untilIdle(): Promise<void>;
  stop(): Promise<number | null>;
}

export async function startTandemProcess(env: Record<string, string>, cwd: string, slack: SlackFakeServer): Promise<Running> {
  const tandem = runTandem(['start'], { PORT: '0', LOG_LEVEL: 'info', ...env }, cwd);
  // A start that never says it runs is stopped here: no caller gets a handle to stop it, and left running it would
  // load the machine for the files after it.
  const line = await tandem.waitForLog('Tandem is running', 60_000).catch((error: unknown) => {
    tandem.child.kill('SIGKILL');
    throw error;
  });
  const port = Number(line.port);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    tandem,
    port,
    baseUrl,
    driver: new TimedDriver({ eventsUrl: `${baseUrl}/slack/events`, signingSecret: SIGNING_SECRET, fake: slack }),
    untilIdle: () => untilIdle(baseUrl),
    async stop() {
      if (tandem.child.exitCode === null) tandem.child.kill('SIGTERM');
      return tandem.exited;
    },
  };
}

interface Button {
  actionId: string;
  value: string | undefined;
  blockId: string | undefined;
  text: string;
}

/** Every button in a message's blocks, with its visible text. */
export function buttonsOf(message: { blocks?: unknown[] }): Button[] {
  const found: Button[] = [];
  const visit = (node: unknown, blockId: string | undefined): void => {
    if (Array.isArray(node)) return node.forEach((child) => visit(child, blockId));
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const id = typeof record.block_id === 'string' ? record.block_id : blockId;
    if (record.type === 'button') {
      const text = (record.text as { text?: string } | undefined)?.text ?? '';
      found.push({ actionId: String(record.action_id), value: record.value as string | undefined, blockId: id, text });
      return;
    }
    for (const value of Object.values(record)) visit(value, id);
  };
  visit(message.blocks ?? [], undefined);
  return found;
}

export function buttonTexts(message: { blocks?: unknown[] }): string[] {
  return buttonsOf(message).map((b) => b.text.trim());
}

/** Clicks the button whose visible text is `text` (e.g. "Approve"). */
export function clickByText(driver: SlackDriver, message: FakeMessage, text: string, user: string): Promise<DriverResponse> {
  const button = buttonsOf(message as { blocks?: unknown[] }).find((b) => b.text.trim().toLowerCase() === text.toLowerCase());
  if (!button) throw new Error(`no "${text}" button in message ${message.ts}: ${buttonTexts(message as { blocks?: unknown[] }).join(', ')}`);
  return driver.click({
    user,
    channel: message.channel,
    messageTs: message.ts,
    threadTs: message.threadTs,
    actionId: button.actionId,
    value: button.value,
    blockId: button.blockId,
  });
}

/** Everything a person reads in a message: its text and every text inside its blocks. */
export function visibleText(message: { text?: string; blocks?: unknown[] | undefined }): string {
  const parts: string[] = [message.text ?? ''];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    // A task card reads as one row: its state, title, details, output and links.
    if ((node as { type?: unknown }).type === 'task_card') return void parts.push(taskCardLine(node as Record<string, unknown>));
    if ((node as { type?: unknown }).type === 'plan' && typeof (node as { title?: unknown }).title === 'string') parts.push((node as { title: string }).title);
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if ((key === 'text' || key === 'alt_text' || key === 'url') && typeof value === 'string') parts.push(value);
      else visit(value);
    }
  };
  visit(message.blocks ?? []);
  return parts.join('\n');
}

function taskCardLine(card: Record<string, unknown>): string {
  const texts: string[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if ((key === 'text' || key === 'url') && typeof value === 'string') texts.push(value);
      else collect(value);
    }
  };
  collect([card.details, card.output, card.sources]);
  return [`[${String(card.status)}] ${String(card.title)}`, ...texts].join(' · ');
}

/** The bot's messages in a thread (the person's own messages left out). */
export function botMessages(slack: SlackFakeServer, channel: string, threadTs: string): FakeMessage[] {
  return slack.model.thread(channel, threadTs).filter((m) => m.user === slack.model.bot.userId);
}

export function hasButtons(message: FakeMessage, ...texts: string[]): boolean {
  const have = buttonTexts(message as { blocks?: unknown[] }).map((t) => t.toLowerCase());
  return texts.every((t) => have.includes(t.toLowerCase()));
}

/** The newest bot message in the thread with all the given buttons. */
export function messageWithButtons(slack: SlackFakeServer, channel: string, threadTs: string, ...texts: string[]): FakeMessage | undefined {
  return botMessages(slack, channel, threadTs)
    .filter((m) => hasButtons(m, ...texts))
    .at(-1);
}

export async function waitFor<T>(slack: SlackFakeServer, find: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  let found: T | undefined | false;
  await slack.waitUntil(() => Boolean((found = find())), timeoutMs, what);
  return found as T;
}

/** Polls a condition that no Slack call signals (e.g. GitHub state). */
export async function poll<T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A run's summary: its fallback text starts with its outcome's emoji (it no longer shows tokens). */
export function isSummary(message: { text?: string }): boolean {
  return /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good|hourglass): /.test(message.text ?? '');
}
