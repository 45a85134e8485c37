import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { DEMO_MESSAGE_NOTE } from '../../src/demo/demo-mode.ts';
import { startTandem, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import { openBrowser } from '../workspace/browser.ts';
import { WorkspaceClient } from './workspace-client.ts';

const RUNBOOKS = fileURLToPath(new URL('../../runbooks', import.meta.url));
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** Four days on, a weekday's 09:00 has always passed since the schedule was made: it is due at the next check. */
const FOUR_DAYS_MS = 4 * 86_400_000;
/** A whole guided task, with its workflow runs, in a browser on a loaded 2-core machine. */
const SESSION_MS = 120_000;

/**
 * Where every socket this process opens goes. A connection is made through net.Socket's connect
 * whatever starts it (fetch, octokit, http, pg), so wrapping it sees them all; a path is a local IPC socket.
 * The browser is another process: what its page asks for is recorded separately (openDemoBrowser).
 */
function recordConnections(): { hosts: string[]; restore(): void } {
  const hosts: string[] = [];
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string; path?: string } | number | string;
    if (typeof first === 'object' && first !== null) hosts.push(first.path ? 'ipc' : (first.host ?? 'localhost'));
    else if (typeof first === 'number') hosts.push(typeof args[1] === 'string' ? args[1] : 'localhost');
    else hosts.push('ipc');
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  return { hosts, restore: () => void (net.Socket.prototype.connect = original) };
}

/** The workspace page as a person uses it: the composer, the open thread, the person switch. */
function workspacePage(page: Page) {
  const thread = page.getByTestId('thread');
  return {
    thread,
    async say(text: string) {
      await page.locator('#composer-input').fill(text);
      await page.locator('#composer-input').press('Enter');
    },
    async reply(text: string) {
      await page.locator('#thread-input').fill(text);
      await page.locator('#thread-input').press('Enter');
    },
    async actAs(person: 'robin' | 'alex' | 'casey') {
      await page.getByTestId(`person-${person}`).click();
      await page.locator(`[data-testid="person-${person}"][aria-pressed="true"]`).waitFor();
    },
    /** The newest button with this label in the open thread (buttons are found by their words, as a person does). */
    click: (label: string) => thread.getByRole('button', { name: label, exact: true }).last().click(),
    /** Waits for the words; when they never come, the failure shows what the thread said instead. */
    async see(pattern: RegExp, where: Locator = thread) {
      try {
        await where.getByText(pattern).last().waitFor({ timeout: 30_000 });
      } catch (error) {
        throw new Error(`${String(pattern)} never appeared; the page shows:\n${await where.innerText().catch(() => '?')}`, { cause: error });
      }
    },
    /** Answers the open question through its Answer button and modal. */
    async answer(text: string) {
      await thread.getByRole('button', { name: 'Answer', exact: true }).last().click();
      const field = page.locator('#modal [data-block-id="answer"]');
      await field.waitFor();
      await field.fill(text);
      await page.getByTestId('modal-submit').click();
      await page.getByTestId('modal').waitFor({ state: 'hidden' });
    },
  };
}

/**
 * `tandem start --demo` as a newcomer uses it: the real runtime with the scripted model and the GitHub
 * sandbox, each guided task driven to its end state in a browser, and no connection beyond this machine.
 */
describe('the demo', () => {
  let runtime: TandemRuntime;
  let dataDir: string;
  let connections: ReturnType<typeof recordConnections>;
  /** Every address the browser asked for, in both sessions: the page, its scripts, its API calls. */
  const browserRequests: string[] = [];
  const openDemoBrowser = async () => {
    const browser = await openBrowser();
    browser.context.on('request', (request) => browserRequests.push(request.url()));
    return browser;
  };

  beforeAll(async () => {
    connections = recordConnections();
    dataDir = await mkdtemp(join(tmpdir(), 'tandem-demo-'));
    const config = loadConfig({ DATA_DIR: dataDir, TANDEM_RUNBOOKS_DIR: RUNBOOKS, LOG_LEVEL: 'silent' });
    runtime = await startTandem({
      config,
      logger: pino({ level: 'silent' }),
      demo: true,
      port: 0,
      demoRunMs: 300,
      scheduleClock: { now: () => new Date(Date.now() + FOUR_DAYS_MS), checkEveryMs: 500 },
    });
  });

  afterAll(async () => {
    await runtime?.close(5_000);
    connections?.restore();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'a release planned, modified, approved and saved as a runbook; a merge through four-eyes, an Answer, an escalation, Replan and a Confirm to its summary',
    async () => {
      const browser = await openDemoBrowser();
      try {
        const { page } = browser;
        const ws = workspacePage(page);
        const { thread } = ws;
        await page.goto(runtime.workspace!.url);
        await page.getByText('Tandem connected').waitFor();
        await expect(page.getByTestId('demo-banner').textContent()).resolves.toMatch(/^DEMO — .*Nothing leaves it/);
        await expect(page.locator('.workspace-name').textContent()).resolves.toContain('demo');

        // Plan and Modify: the suggestion fills the composer; the planner is asked to make it a draft.
        await page.getByTestId('suggestions').getByRole('button', { name: 'Cut a release of demo/api' }).click();
        await expect(page.locator('#composer-input').inputValue()).resolves.toBe('@tandem cut a release of demo/api');
        await expect(page.getByTestId('suggestion-hint').textContent()).resolves.toContain('Modify');
        await page.locator('#composer-input').press('Enter');
        await thread.getByRole('button', { name: 'Approve' }).waitFor();
        // The bot's own message says demo, not only the page around it.
        expect(await thread.locator('.msg.bot').first().textContent()).toContain(DEMO_MESSAGE_NOTE);
        await ws.click('Modify');
        await page.locator('#modal [data-block-id="plan-instruction"]').fill('make it a draft');
        await page.getByTestId('modal-submit').click();
        await ws.see(/Plan v2 — /);
        await ws.see(/Publish draft release v1\.4\.0/);
        await ws.click('Approve');
        await ws.see(/Succeeded: Publish draft release v1\.4\.0 of demo\/api/); // the board and the summary both say it
        const release = runtime.demo!.world.get('demo/api')!.releases.find((r) => r.tag === 'v1.4.0');
        expect(release).toMatchObject({ draft: true, body: expect.stringContaining('Retry payment webhooks with backoff') });

        // Save as runbook: the modal from the summary, saved; the thread hears the pattern.
        await ws.click('Save as runbook');
        await page.getByTestId('modal-submit').waitFor();
        await page.getByTestId('modal-submit').click();
        await ws.see(/saved this run as runbook/);

        // Four-eyes: Robin asks for a merge; a merge needs an approver other than Robin, so Alex approves.
        await ws.actAs('robin');
        await ws.say('@tandem merge the PR I name in demo/api');
        await ws.click('Approve');
        await thread
          .locator('.msg.ephemeral')
          .filter({ hasText: /other than|requester/i })
          .first()
          .waitFor();
        await ws.actAs('alex');
        await ws.click('Approve');
        await ws.see(/Which pull request of demo\/api should I merge/);

        // Only the requester or an approver may answer: Casey's answer through the modal is refused and changes nothing.
        await ws.actAs('casey');
        await ws.answer('7');
        await thread
          .locator('.msg.ephemeral')
          .filter({ hasText: /requester|approver|who asked/i })
          .first()
          .waitFor();
        expect(await thread.getByRole('button', { name: 'Answer', exact: true }).count()).toBe(1);

        // Robin names #9, a draft: the check fails, and the escalation offers the four answers by name.
        await ws.actAs('robin');
        await ws.answer('9');
        await ws.see(/Answered by @robin: 9/);
        await ws.see(/not ready to merge/);
        for (const label of ['Retry', 'Skip', 'Replan', 'Abort']) await thread.getByRole('button', { name: label, exact: true }).last().waitFor();
        await ws.click('Replan');

        // The new plan asks again; it still needs an approver other than Robin.
        await ws.see(/Plan v2/);
        await ws.actAs('alex');
        await ws.click('Approve');
        await ws.actAs('robin');
        await ws.answer('7');

        // The number came from a person: the merge waits for an approver other than Robin to Confirm it.
        await thread.getByRole('button', { name: 'Confirm' }).waitFor();
        await ws.see(/number = 7\s*\(filled in at run time\)/);
        await ws.actAs('alex');
        await ws.click('Confirm');

        // The summary: the true outcome first, then what the check read, then the merge in the past tense.
        const summary = thread
          .locator('.msg.bot .msg-body')
          .filter({ hasText: /Merged demo\/api#7/ })
          .last();
        await summary.waitFor({ timeout: 30_000 });
        const said = (await summary.textContent()) ?? '';
        // The check of #9 failed and a new plan took over: the run finished after replanning, it did not simply succeed.
        const order = [
          'Finished after replanning: Merge the pull request of demo/api',
          'Check the named pull request is ready failed; every step of the new plan succeeded',
          'demo/api#7 “Add rate limiting to /orders” is open',
          'Merged demo/api#7 (squash)',
          DEMO_MESSAGE_NOTE,
        ];
        for (const part of order) expect(said).toContain(part);
        expect(order.map((part) => said.indexOf(part))).toEqual(order.map((part) => said.indexOf(part)).sort((a, b) => a - b));
        expect(said).not.toMatch(/\bs\d\b|run_/); // no step or run ids in the summary
        expect(runtime.demo!.world.get('demo/api')!.issues.find((issue) => issue.number === 7)!.pull!.merged).toBe(true);
        expect(runtime.demo!.world.get('demo/api')!.issues.find((issue) => issue.number === 9)!.pull!.merged).toBe(false);
      } finally {
        await browser.close();
      }
    },
    SESSION_MS,
  );
  it(
    'a failed deploy escalates: Retry, Replan, Abort with its rollback, Skip; the parallel board; a schedule that fires; /tandem status; an unknown task',
    async () => {
      const browser = await openDemoBrowser();
      try {
        const { page } = browser;
        const ws = workspacePage(page);
        const { thread } = ws;
        const web = runtime.demo!.world.get('demo/web')!;
        await page.goto(runtime.workspace!.url);
        await page.getByText('Tandem connected').waitFor();
        await ws.actAs('robin');

        // The escalation: the deploy workflow fails; Retry runs it again (it fails again), Replan rolls back with a new plan.
        await page.getByTestId('suggestions').getByRole('button', { name: 'Deploy demo/web (its deploy fails)' }).click();
        await page.locator('#composer-input').press('Enter');
        await ws.click('Approve');
        for (const label of ['Retry', 'Skip', 'Replan', 'Abort']) await thread.getByRole('button', { name: label, exact: true }).last().waitFor();
        await ws.click('Retry');
        await ws.see(/Retried by @robin/);
        await thread.getByRole('button', { name: 'Replan', exact: true }).waitFor();
        await ws.click('Replan');
        await ws.see(/Roll demo\/web back/);
        // The new plan says the deploy itself is not done by it, and the end says the deploy failed: not "Succeeded".
        await ws.see(/Not covered: deploy main of demo\/web/);
        await ws.click('Approve');
        await ws.see(/Finished after replanning: Roll demo\/web back/);
        await ws.see(/Run the deploy workflow on main failed; every step of the new plan succeeded/);
        expect(await thread.textContent()).not.toMatch(/Succeeded: Roll demo\/web back/);
        expect(web.comments.map((comment) => comment.body).join('\n')).toContain('rolled back to its last good version');

        // Abort: what succeeded is rolled back (a note on the tracking issue); the summary says so.
        await ws.say('@tandem deploy demo/web');
        await ws.click('Approve');
        await ws.click('Abort');
        await ws.see(/Aborted: Deploy main of demo\/web/);
        await ws.see(/Rolled back/);
        expect(web.comments.map((comment) => comment.body)).toEqual(
          expect.arrayContaining([expect.stringContaining('The deploy was aborted and rolled back.')]),
        );

        // Skip: the run goes on without the deploy, and its outcome says what was skipped.
        await ws.say('@tandem deploy demo/web');
        await ws.click('Approve');
        await ws.click('Skip');
        await ws.see(/Finished with 2 skipped: Deploy main of demo\/web/); // the deploy, and the health check that waited on it

        // The parallel board: independent steps (reads, health checks, a CI run, a small agent), then the report from all of them.
        await page.getByTestId('suggestions').getByRole('button', { name: 'Status report (parallel board)' }).click();
        await page.locator('#composer-input').press('Enter');
        await ws.click('Approve');
        await ws.see(/Succeeded: Report on the state of demo\/api and demo\/web/);
        await ws.see(/7\/7 steps done/);
        const board = thread
          .locator('.msg.bot')
          .filter({ hasText: /7\/7 steps done/ })
          .last();
        for (const title of ['Open pull requests of demo/api', 'Health of demo/web', 'Run CI on main of demo/api', 'Find the open bugs', 'Write the report'])
          await board.getByText(title).first().waitFor();
        // At the same time, not one after another: every independent step had started before the CI run (which waits
        // for its workflow) was done, and the report, which needs them all, started after the last of them.
        const report = (await runtime.store.listRuns({ limit: 20 })).find((run) => run.task === 'give me a status report on demo/api and demo/web');
        const steps = await runtime.store.listSteps(report!.id);
        const ci = steps.find((step) => step.tool === 'github_dispatch_workflow')!;
        const independent = steps.filter((step) => step.dependsOn.length === 0);
        expect(independent).toHaveLength(6);
        for (const step of independent) expect(step.startedAt!.getTime()).toBeLessThan(ci.finishedAt!.getTime());
        const writeUp = steps.find((step) => step.tool === 'llm_task')!;
        expect(writeUp.startedAt!.getTime()).toBeGreaterThanOrEqual(Math.max(...independent.map((step) => step.finishedAt!.getTime())));

        // A schedule: made from the suggestion, then fired (the test's clock is days ahead) into a thread of its own, and run.
        await page.getByTestId('suggestions').getByRole('button', { name: 'Schedule it' }).click();
        await page.locator('#composer-input').press('Enter');
        await ws.see(/Scheduled for @robin: give me a status report/);
        // The workspace's people have this machine's time zone, as a Slack profile has its person's.
        await ws.see(new RegExp(`in ${Intl.DateTimeFormat().resolvedOptions().timeZone.replace('/', '\\/')}`));
        expect(await thread.textContent()).not.toMatch(/did not tell me your time zone/);
        const fired = page
          .getByTestId('messages')
          .locator('.msg.bot')
          .filter({ hasText: /Scheduled by @robin: give me a status report/ });
        await fired.first().waitFor({ timeout: 30_000 });
        await fired.first().locator('.replies').waitFor({ timeout: 30_000 });
        await fired.first().locator('.replies').click();
        await ws.click('Approve');
        await ws.see(/Succeeded: Report on the state of demo\/api and demo\/web/);

        // A task the demo model does not know: it says so plainly and asks which guided task; the run waits for the answer.
        await ws.say('@tandem write me a poem');
        await ws.see(/only know the guided tasks/);

        // /tandem status: private to the person who asked, listing the run still waiting.
        await ws.say('/tandem status');
        const status = page
          .getByTestId('messages')
          .locator('.msg.ephemeral')
          .filter({ hasText: /Runs in progress in this channel/ });
        await status.last().waitFor();
        expect(await status.last().textContent()).toMatch(/write me a poem/);
      } finally {
        await browser.close();
      }
    },
    SESSION_MS,
  );

  it('every message the bot posted in the demo says it is the demo, once', async () => {
    const state = await new WorkspaceClient(runtime.workspace!.url).state();
    const fromBot = [...state.messages, ...state.messages.flatMap((message) => message.replies)].filter((message) => message.isBot);
    expect(fromBot.length).toBeGreaterThan(30);
    // The answer to /tandem status went through the command's response_url, not the Web API: it says so too.
    expect(state.ephemerals.some((message) => /Runs in progress/.test(message.text))).toBe(true);
    for (const message of [...fromBot, ...state.ephemerals]) {
      const shown = JSON.stringify(message.blocks ?? []) + message.text;
      expect({ ts: message.ts, notes: shown.split(DEMO_MESSAGE_NOTE).length - 1 }).toEqual({ ts: message.ts, notes: 1 });
    }
  });

  it('never opened a connection beyond this machine, from the bot or from the page in the browser', () => {
    expect(connections.hosts.length).toBeGreaterThan(10);
    expect(connections.hosts.filter((host) => host !== 'ipc' && !LOOPBACK.has(host))).toEqual([]);
    expect(browserRequests.length).toBeGreaterThan(10);
    expect(browserRequests.filter((url) => !LOOPBACK.has(new URL(url).hostname.replace(/^\[|\]$/g, '')))).toEqual([]);
  });
});
