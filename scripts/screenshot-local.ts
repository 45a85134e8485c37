/**
 * Takes README's picture of the local workspace (docs/local-workspace.png): Tandem in local mode with
 * no Slack tokens and no model, a browser asking it to check its own health, approving, and rating the
 * run. Run: npx tsx scripts/screenshot-local.ts (uses the same Chromium as the browser tests).
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
  local: true,
  port: 0,
});
const browser = await openBrowser();
try {
  const { page } = browser;
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(runtime.workspace!.url);
  await page.getByText('Tandem connected').waitFor();
  await page.locator('#composer-input').fill(`@tandem check health of http://127.0.0.1:${runtime.port}/healthz`);
  await page.locator('#composer-input').press('Enter');
  const thread = page.getByTestId('thread');
  await thread.getByRole('button', { name: 'Approve' }).click();
  await thread.locator('.bk-plan', { hasText: 'Succeeded:' }).waitFor({ timeout: 20_000 });
  await thread.getByRole('button', { name: 'This run went well' }).click();
  await thread.getByText(/Thanks — noted/).waitFor();
  await page.mouse.move(0, 0); // no hover highlight in the picture
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  await runtime.close(5_000);
  await rm(dataDir, { recursive: true, force: true });
}
