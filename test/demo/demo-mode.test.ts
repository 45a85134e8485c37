import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startTandem, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import { openBrowser } from '../workspace/browser.ts';
import { WorkspaceClient } from './workspace-client.ts';

const RUNBOOKS = fileURLToPath(new URL('../../runbooks', import.meta.url));
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Where every socket this process opens goes. A connection is made through net.Socket's connect
 * whatever starts it (fetch, octokit, http, pg), so wrapping it sees them all; a path is a local IPC socket.
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

/**
 * `tandem start --demo` as a newcomer uses it: the real runtime with the scripted model and the GitHub
 * sandbox, each guided task driven to its end state — the main ones in a browser, the rest through the
 * workspace's own browser API — and no connection beyond this machine.
 */
describe('the demo', () => {
  let runtime: TandemRuntime;
  let dataDir: string;
  let connections: ReturnType<typeof recordConnections>;

  beforeAll(async () => {
    connections = recordConnections();
    dataDir = await mkdtemp(join(tmpdir(), 'tandem-demo-'));
    const config = loadConfig({ DATA_DIR: dataDir, TANDEM_RUNBOOKS_DIR: RUNBOOKS, LOG_LEVEL: 'silent' });
    runtime = await startTandem({ config, logger: pino({ level: 'silent' }), demo: true, port: 0, demoRunMs: 300 });
  });

  afterAll(async () => {
    await runtime?.close(5_000);
    connections?.restore();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('in a browser: a release planned, modified, approved and saved as a runbook; a merge with four-eyes, a question and a Confirm', async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(runtime.workspace!.url);
      await page.getByText('Tandem connected').waitFor();
      await expect(page.getByTestId('demo-banner').textContent()).resolves.toMatch(/^DEMO — .*Nothing leaves it/);
      await expect(page.locator('.workspace-name').textContent()).resolves.toContain('demo');
      const thread = page.getByTestId('thread');
      const send = async () => page.locator('#composer-input').press('Enter');

      // Plan and Modify: the suggestion fills the composer; the planner is asked to make it a draft.
      await page.getByTestId('suggestions').getByRole('button', { name: 'Cut a release of demo/api' }).click();
      await expect(page.locator('#composer-input').inputValue()).resolves.toBe('@tandem cut a release of demo/api');
      await expect(page.getByTestId('suggestion-hint').textContent()).resolves.toContain('Modify');
      await send();
      await thread.getByRole('button', { name: 'Approve' }).waitFor();
      expect(await thread.locator('.msg.bot').first().textContent()).toContain('DEMO');
      await thread.getByRole('button', { name: 'Modify' }).click();
      await page.locator('#modal [data-block-id="plan-instruction"]').fill('make it a draft');
      await page.getByTestId('modal-submit').click();
      // Version 2 says why it exists once; its header is the goal.
      await thread
        .getByText(/Plan v2 — /)
        .first()
        .waitFor();
      await thread
        .getByText(/Publish draft release v1\.4\.0/)
        .first()
        .waitFor();
      await thread.getByRole('button', { name: 'Approve' }).last().click();
      await thread
        .getByText(/Succeeded: Publish draft release v1\.4\.0 of demo\/api/)
        .last()
        .waitFor({ timeout: 20_000 }); // the board and the summary both say it
      const release = runtime.demo!.world.get('demo/api')!.releases.find((r) => r.tag === 'v1.4.0');
      expect(release).toMatchObject({ draft: true, body: expect.stringContaining('Retry payment webhooks with backoff') });

      // Save as runbook: the modal from the summary, saved; the thread hears the pattern.
      await thread.getByRole('button', { name: 'Save as runbook' }).click();
      await page.getByTestId('modal-submit').waitFor();
      await page.getByTestId('modal-submit').click();
      await thread.getByText(/saved this run as runbook/).waitFor();

      // Four-eyes: Robin asks for a merge; a merge needs an approver other than Robin, so Alex approves.
      await page.locator('#composer-input').fill('@tandem merge the PR I name in demo/api');
      await send();
      await thread.getByRole('button', { name: 'Approve' }).waitFor();
      await thread.getByRole('button', { name: 'Approve' }).click();
      await thread
        .locator('.msg.ephemeral')
        .filter({ hasText: /other than|requester/i })
        .first()
        .waitFor();
      await page.getByTestId('person-alex').click();
      await page.locator('[data-testid="person-alex"][aria-pressed="true"]').waitFor();
      await thread.getByRole('button', { name: 'Approve' }).click();
      await thread.getByText(/Which pull request of demo\/api should I merge/).waitFor();

      // Only the requester or an approver may answer: Casey is told so; Robin answers.
      await page.getByTestId('person-casey').click();
      await page.locator('#thread-input').fill('@tandem 7');
      await page.locator('#thread-input').press('Enter');
      await thread
        .locator('.msg.ephemeral')
        .filter({ hasText: /requester|approver|who asked/i })
        .first()
        .waitFor();
      await page.getByTestId('person-robin').click();
      await page.locator('#thread-input').fill('@tandem 7');
      await page.locator('#thread-input').press('Enter');

      // The number came from a person: the merge waits for an approver other than Robin to Confirm it.
      await thread.getByRole('button', { name: 'Confirm' }).waitFor();
      await thread.getByText(/number = 7\s*\(filled in at run time\)/).waitFor();
      await page.getByTestId('person-alex').click();
      await thread.getByRole('button', { name: 'Confirm' }).click();
      await thread
        .getByText(/Succeeded: Merge the pull request of demo\/api/)
        .last()
        .waitFor({ timeout: 20_000 });
      expect(runtime.demo!.world.get('demo/api')!.issues.find((issue) => issue.number === 7)!.pull!.merged).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('through the workspace API: a failed deploy escalates and is replanned, or aborted with its rollback; the board; a schedule; /tandem status; an unknown task', async () => {
    const ws = new WorkspaceClient(runtime.workspace!.url);
    // Switching person is a workspace action like any other: without the key it is refused and changes nothing.
    const origin = new URL(runtime.workspace!.url).origin;
    const keyless = await fetch(`${origin}/local/people/current`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"UCASEY"}' });
    expect(keyless.status).toBe(403);
    expect((await ws.state()).me.id).toBe('UALEX');
    await ws.actAs('UROBIN');
    const web = runtime.demo!.world.get('demo/web')!;

    // Escalation and Replan: the deploy workflow fails; the new plan rolls back and says so on the tracking issue.
    let ts = await ws.say('@tandem deploy demo/web');
    await ws.click(ts, 'Approve');
    await ws.waitForText(ts, /A step failed/);
    await ws.click(ts, 'Replan');
    await ws.waitForText(ts, /Plan v2: Roll demo\/web back/);
    await ws.click(ts, 'Approve');
    await ws.waitForText(ts, /Succeeded: Roll demo\/web back/);
    expect(web.comments.map((comment) => comment.body).join('\n')).toContain('rolled back to its last good version');

    // Abort: what succeeded is rolled back (a note on the tracking issue); the summary says so.
    ts = await ws.say('@tandem deploy demo/web');
    await ws.click(ts, 'Approve');
    await ws.click(ts, 'Abort');
    await ws.waitForText(ts, /:octagonal_sign: Aborted: Deploy main of demo\/web[\s\S]*Rolled back:[\s\S]*Note on the tracking issue/);
    expect(web.comments.map((comment) => comment.body)).toEqual(expect.arrayContaining([expect.stringContaining('The deploy was aborted and rolled back.')]));

    // The parallel board: independent steps, one of them a CI run, then the report from all of them.
    ts = await ws.say('@tandem give me a status report on demo/api and demo/web');
    await ws.click(ts, 'Approve');
    const report = await ws.waitForText(ts, /Succeeded: Report on the state of demo\/api and demo\/web \(7\/7 steps done\)/);
    expect(report.text).toContain('7/7');

    // A schedule, the channel's status, and a task the demo model does not know.
    ts = await ws.say('@tandem every weekday at 09:00 give me a status report on demo/api and demo/web');
    await ws.waitForText(ts, /Scheduled: give me a status report/);
    // A task the demo model does not know: it says so and asks which guided task; the run waits, so /tandem status lists it.
    ts = await ws.say('@tandem write me a poem');
    await ws.waitForText(ts, /only know the guided tasks/);
    await ws.say('/tandem status');
    const deadline = Date.now() + 10_000;
    // The answer is private (an ephemeral for the person who asked).
    const statusAnswer = async () => (await ws.state()).ephemerals.find((m) => /Runs in progress in this channel/.test(m.text));
    while (!(await statusAnswer()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await statusAnswer())?.text).toMatch(/write me a poem/);
  });

  it('never opened a connection beyond this machine', () => {
    expect(connections.hosts.length).toBeGreaterThan(10);
    expect(connections.hosts.filter((host) => host !== 'ipc' && !LOOPBACK.has(host))).toEqual([]);
  });
});
