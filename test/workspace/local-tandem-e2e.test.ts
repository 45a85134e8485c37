import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startTandem, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import { openBrowser } from './browser.ts';

const RUNBOOKS = fileURLToPath(new URL('../../runbooks', import.meta.url));

/**
 * The newcomer's path end to end: Tandem started in local mode with no Slack tokens and no model,
 * the real Bolt app and agent behind the page, a browser typing and clicking as a person would.
 */
describe('Tandem in the local workspace, in a browser', () => {
  let runtime: TandemRuntime;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tandem-local-e2e-'));
    const config = loadConfig({ DATA_DIR: dataDir, TANDEM_RUNBOOKS_DIR: RUNBOOKS, LOG_LEVEL: 'silent' });
    runtime = await startTandem({ config, logger: pino({ level: 'silent' }), local: true, port: 0 });
  });

  afterAll(async () => {
    await runtime?.close(5_000);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('plans a health check of the bot from a runbook, shows the YAML modal, runs on Approve, finishes the board, takes a thumb, and plans from a DM', async () => {
    const workspaceUrl = runtime.workspace!.url;
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(workspaceUrl);
      await page.getByText('Tandem connected').waitFor();

      // With no model configured, a task no runbook matches gets told how to configure one.
      await page.locator('#composer-input').fill('@tandem summarise what changed this week');
      await page.locator('#composer-input').press('Enter');
      const thread = page.getByTestId('thread');
      await thread.getByText(/PLANNER_MODEL/).waitFor(); // the how-to names the variables to set

      // The bot's own health URL: in local mode the only local address http_check may reach.
      const target = `http://127.0.0.1:${runtime.port}/healthz`;
      await page.locator('#composer-input').fill(`@tandem check health of ${target}`);
      await page.locator('#composer-input').press('Enter');
      await thread.getByRole('button', { name: 'Approve' }).waitFor();
      const plan = await thread.textContent();
      expect(plan).toContain(`Check that ${target} answers with HTTP 200`);
      expect(plan).toContain('http_check'); // each step names its tool (CONTRACT §5)
      expect(plan).toContain('Plan from runbook check-health');

      // Modify: the plan as YAML; a broken edit is a field error and the text stays.
      await thread.getByRole('button', { name: 'Modify' }).click();
      const yaml = page.getByTestId('modal').locator('textarea[data-block-id="plan-yaml-0"]');
      await yaml.waitFor();
      await expect(yaml.inputValue()).resolves.toContain('tool: http_check');
      await yaml.fill('goal: [this is not yaml');
      await page.getByTestId('modal-submit').click();
      await page.getByTestId('modal').getByRole('alert').first().waitFor();
      await expect(yaml.inputValue()).resolves.toBe('goal: [this is not yaml');
      await page.getByTestId('modal').getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('modal').waitFor({ state: 'hidden' });

      await thread.getByRole('button', { name: 'Approve' }).click();
      // The board (the summary says "Succeeded: …" too, but counts no steps).
      const board = thread.locator('.msg', { hasText: `Succeeded: Check that ${target} answers with HTTP 200` }).filter({ hasText: 'steps done' });
      await board.waitFor({ timeout: 20_000 });
      const boardText = await board.textContent();
      // The board is a plan block whose task card draws the mark and the title side by side.
      expect(boardText?.replace(/\s+/g, ' ')).toMatch(/✔ ?1\. GET /);
      expect(boardText).toContain(`1. GET ${target}`);
      expect(boardText).toContain('1/1 steps done');
      expect(await thread.textContent()).toContain('Approved by @you');
      await expect(thread.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);

      // Slack's thumbs under the summary: the click reaches the bot, which answers privately; the thumb stays pressed.
      await thread.getByRole('button', { name: 'This run went well' }).click();
      await thread.getByText(/Thanks — noted: this run went well/).waitFor();
      await expect(thread.getByRole('button', { name: 'This run went well' }).getAttribute('aria-pressed')).resolves.toBe('true');
      await expect(page.getByTestId('session').textContent()).resolves.toBe('Agent session: closed');

      // The DM with the bot: any message is a request, planned in its own thread.
      await page.getByTestId('open-dm').click();
      await page.locator('#composer-input').fill(`check health of ${target}`);
      await page.locator('#composer-input').press('Enter');
      await thread.getByRole('button', { name: 'Approve' }).waitFor();
      await expect(page.locator('#thread-channel').textContent()).resolves.toBe('tandem');
      const dm = await page.getByTestId('messages').textContent();
      expect(dm).toContain(`check health of ${target}`);
      expect(dm).not.toContain('summarise what changed this week'); // #general's messages stay in #general
    } finally {
      await browser.close();
    }
  });
});
