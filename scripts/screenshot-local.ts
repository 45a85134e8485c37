/**
 * Takes README's first picture (docs/local-workspace.png) from the demo: `tandem start --demo` in a
 * browser, a release of demo/api planned, changed with Modify ("make it a draft"), approved and run, with
 * its board and summary in the thread. It also prints the thread's plan message and finished board as
 * text, which README's text picture of a thread copies. Run: npx tsx scripts/screenshot-local.ts (uses
 * the same Chromium as the browser tests).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { startTandem } from '../src/runtime/start-tandem.ts';
import { openBrowser } from '../test/workspace/browser.ts';

const target = fileURLToPath(new URL('../docs/local-workspace.png', import.meta.url));
const runbooks = fileURLToPath(new URL('../runbooks', import.meta.url));

const dataDir = await mkdtemp(join(tmpdir(), 'tandem-screenshot-'));
const runtime = await startTandem({
  config: loadConfig({ DATA_DIR: dataDir, TANDEM_RUNBOOKS_DIR: runbooks, LOG_LEVEL: 'silent' }),
  logger: pino({ level: 'silent' }),
  demo: true,
  port: 0,
  demoRunMs: 1_500,
});
const browser = await openBrowser();
try {
  const { page } = browser;
  await page.setViewportSize({ width: 1500, height: 1150 });
  await page.goto(runtime.workspace!.url);
  await page.getByText('Tandem connected').waitFor();
  await page.getByTestId('suggestions').getByRole('button', { name: 'Cut a release of demo/api' }).click();
  await page.locator('#composer-input').press('Enter');
  const thread = page.getByTestId('thread');
  await thread.getByRole('button', { name: 'Modify' }).waitFor({ timeout: 20_000 });
  console.log(`--- the plan, waiting for approval ---\n${await thread.locator('.msg.bot').first().locator('.msg-body').innerText()}`);
  await thread.getByRole('button', { name: 'Modify' }).click();
  await page.locator('#modal [data-block-id="plan-instruction"]').fill('make it a draft');
  await page.getByTestId('modal-submit').click();
  await thread.getByText(/Plan v2 — /).waitFor({ timeout: 20_000 });
  const plan = thread.locator('.msg.bot').filter({ hasText: /Plan v2 — / });
  console.log(`--- plan v2 ---\n${await plan.locator('.msg-body').innerText()}`);
  await thread.getByRole('button', { name: 'Approve' }).last().click();
  await thread.locator('.bk-plan', { hasText: 'Succeeded:' }).waitFor({ timeout: 30_000 });
  await thread.getByRole('button', { name: 'Save as runbook' }).waitFor();
  const board = thread.locator('.msg.bot').filter({ has: page.locator('.bk-plan') });
  console.log(`--- the board, finished ---\n${await board.last().locator('.msg-body').innerText()}`);
  const summary = thread.locator('.msg.bot').filter({ hasText: 'What changed' });
  console.log(`--- the summary ---\n${await summary.last().locator('.msg-body').innerText()}`);
  await page.mouse.move(0, 0); // no hover highlight in the picture
  await thread.locator('#thread-messages').evaluate((element) => element.scrollTo(0, element.scrollHeight));
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  await runtime.close(5_000);
  await rm(dataDir, { recursive: true, force: true });
}
