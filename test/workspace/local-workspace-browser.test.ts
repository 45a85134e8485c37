import { App, LogLevel } from '@slack/bolt';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { asSlackBlocks, asSlackView } from '../../src/bot/views/limits.ts';
import { modifyModal, MODIFY_CALLBACK } from '../../src/bot/views/plan/modify-modal.ts';
import { planMessages, PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { statusBoard } from '../../src/bot/views/run/status-board.ts';
import { context } from '../../src/bot/views/text.ts';
import { startLocalWorkspace, type LocalWorkspace } from '../../src/workspace/local/local-workspace.ts';
import { openBrowser } from './browser.ts';
import { makeRun } from '../fakes/slack-fixtures.ts';

const SECRET = 'browser-test-secret';

/**
 * A small Bolt app (HTTP mode, real signature checks) that answers with Tandem's own views: a plan
 * with Approve/Modify/Reject, the Modify modal (YAML errors shown as field errors), and a status board.
 * It checks the page and the workspace in a real browser without the whole runtime.
 */
function startTinyBot(workspace: LocalWorkspace) {
  const app = new App({
    token: workspace.botToken,
    signingSecret: SECRET,
    botId: 'BBOT',
    botUserId: 'UBOT',
    clientOptions: { slackApiUrl: workspace.slackApiUrl },
    logLevel: LogLevel.ERROR,
  });
  const plan = (url: string): Plan => ({
    schemaVersion: 1,
    goal: `Check health of ${url}`,
    confidence: 0.9,
    steps: [{ id: 's1', title: `GET ${url}`, tool: 'http_check', args: { url }, dependsOn: [] }],
    rollback: [],
  });
  let current: Plan | undefined;
  app.event('app_mention', async ({ event, client }) => {
    const url = /https?:\/\/\S+/.exec(event.text)?.[0] ?? 'http://127.0.0.1/';
    current = plan(url);
    const view = planMessages({
      run: makeRun({ requester: event.user ?? 'U0' }),
      version: 1,
      plan: current,
      authorKind: 'runbook',
      authorId: 'check-health',
      risks: { s1: 'read' },
      diff: null,
      reason: null,
      autoApproved: false,
    })[0]!;
    await client.chat.postMessage({ channel: event.channel, thread_ts: event.ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
  });
  app.action(PLAN_MODIFY_ACTION, async ({ ack, body, client }) => {
    await ack();
    await client.views.open({
      trigger_id: (body as { trigger_id: string }).trigger_id,
      view: asSlackView(modifyModal({ runId: 'run_1', planVersion: 1, plan: current! })),
    });
  });
  app.view(MODIFY_CALLBACK, async ({ ack, view }) => {
    const yaml = view.state.values['plan-yaml-0']?.yaml?.value ?? '';
    try {
      parse(yaml);
      await ack();
    } catch (error) {
      await ack({ response_action: 'errors', errors: { 'plan-yaml-0': `Not valid YAML: ${(error as Error).message.split('\n')[0]}` } });
    }
  });
  app.action(PLAN_APPROVE_ACTION, async ({ ack, body, client }) => {
    await ack();
    const action = body as unknown as {
      channel: { id: string };
      message: { ts: string; thread_ts: string; text: string; blocks: { type: string }[] };
      user: { id: string };
    };
    const kept = action.message.blocks.filter((block) => block.type !== 'actions');
    await client.chat.update({
      channel: action.channel.id,
      ts: action.message.ts,
      text: action.message.text,
      blocks: asSlackBlocks([...kept, context(`:white_check_mark: Approved by <@${action.user.id}>`)]),
    });
    const board = (status: 'executing' | 'succeeded') =>
      statusBoard({
        runId: 'run_1',
        goal: current!.goal,
        planVersion: 1,
        runStatus: status,
        startedAt: new Date(),
        elapsedMs: 1200,
        steps: [
          {
            stepId: 's1',
            title: current!.steps[0]!.title,
            tool: 'http_check',
            kind: 'forward',
            status: status === 'executing' ? 'running' : 'succeeded',
            elapsedMs: status === 'executing' ? null : 40,
            url: null,
            note: status === 'executing' ? null : 'HTTP 200',
          },
        ],
      });
    const posted = await client.chat.postMessage({
      channel: action.channel.id,
      thread_ts: action.message.thread_ts,
      ...board('executing'),
      blocks: asSlackBlocks(board('executing').blocks),
    });
    await client.chat.update({ channel: action.channel.id, ts: posted.ts!, ...board('succeeded'), blocks: asSlackBlocks(board('succeeded').blocks) });
  });
  // Slack's Stop: the bot stops, says so (which clears the status line) and closes the session.
  app.event('agent_session_stopped', async ({ event, client }) => {
    const { channel, thread_ts: threadTs, user } = event as unknown as { channel: string; thread_ts: string; user: string };
    await client.chat.postMessage({ channel, thread_ts: threadTs, text: `Stopped by <@${user}>.` });
    await client.agents.sessions.setStatus({ channel_id: channel, thread_ts: threadTs, status: 'closed' });
  });
  return app;
}

describe('local workspace in a browser (small Bolt app)', () => {
  let workspace: LocalWorkspace;
  let app: App;
  /** The bot's own health URL: the one the page suggests checking. */
  let healthUrl: string;

  beforeAll(async () => {
    workspace = await startLocalWorkspace({ signingSecret: SECRET, logger: pino({ level: 'silent' }) });
    app = startTinyBot(workspace);
    const server = (await app.start(0)) as Server;
    const port = (server.address() as AddressInfo).port;
    workspace.connectBot(`http://127.0.0.1:${port}/slack/events`);
    healthUrl = `http://127.0.0.1:${port}/healthz`;
  });

  afterAll(async () => {
    await app?.stop();
    await workspace?.close();
  });

  it("a person mentions the bot, meets a modal field error, approves, sees the board finish, and presses Slack's Stop on a working thread", async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(workspace.url);
      await page.getByText('Tandem connected').waitFor();
      // The key leaves the address bar for an HttpOnly cookie, which a reload still carries.
      expect(page.url()).toBe(`${workspace.origin}/`);
      await page.reload();
      await page.getByText('Tandem connected').waitFor();
      const task = `@tandem check health of ${healthUrl}`;
      await expect(page.getByTestId('hint').textContent()).resolves.toBe(task);
      await page.locator('#composer-input').fill(task);
      await page.locator('#composer-input').press('Enter');

      const thread = page.getByTestId('thread');
      await thread.getByRole('button', { name: 'Approve' }).waitFor();
      await expect(thread.locator('.bk-header').first().textContent()).resolves.toBe(`Check health of ${healthUrl}`);
      await expect(page.getByTestId('messages').locator('.replies').textContent()).resolves.toBe('1 reply');

      await thread.getByRole('button', { name: 'Modify' }).click();
      const yaml = page.getByTestId('modal').locator('textarea[data-block-id="plan-yaml-0"]');
      await yaml.waitFor();
      await expect(yaml.inputValue()).resolves.toContain('tool: http_check');
      await yaml.fill('goal: [unclosed');
      await page.getByTestId('modal-submit').click();
      await page.getByTestId('modal').getByRole('alert').waitFor();
      await expect(page.getByTestId('modal').getByRole('alert').textContent()).resolves.toMatch(/^Not valid YAML/);
      await expect(yaml.inputValue()).resolves.toBe('goal: [unclosed');
      await page.getByTestId('modal').getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('modal').waitFor({ state: 'hidden' });

      await thread.getByRole('button', { name: 'Approve' }).click();
      await thread.getByText(`Succeeded: Check health of ${healthUrl}`).waitFor();
      const text = await thread.textContent();
      expect(text).toContain('Approved by @you');
      expect(text).toContain('✔ 1. GET');
      expect(text).toContain('1/1 steps done');
      await expect(thread.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);

      // Slack's agent surfaces on the thread, as the bot sets them: the status line, the session and its Stop.
      const threadTs = (await page.getByTestId('messages').locator('.replies').getAttribute('data-thread'))!;
      await app.client.assistant.threads.setStatus({ channel_id: 'CGENERAL', thread_ts: threadTs, status: 'is working…' });
      await app.client.agents.sessions.setStatus({ channel_id: 'CGENERAL', thread_ts: threadTs, status: 'processing' });
      await page.getByTestId('thread-status').getByText('tandem is working…').waitFor();
      await expect(page.getByTestId('session').textContent()).resolves.toBe('Agent session: processing');
      await page.getByTestId('session-stop').click();
      await thread.getByText('Stopped by @you.').waitFor();
      await page.getByTestId('session').getByText('Agent session: closed').waitFor();
      await expect(page.getByTestId('thread-status').isHidden()).resolves.toBe(true);
      await expect(page.getByTestId('session-stop').isHidden()).resolves.toBe(true);
    } finally {
      await browser.close();
    }
  });
});
