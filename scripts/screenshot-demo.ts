/**
 * Takes README's picture of the demo (docs/demo.png): `tandem start --demo` in a browser, the failing
 * deploy of demo/web approved, its escalation answered with Replan, the new plan approved and done —
 * with the demo's banner, people and guided tasks in view. Run: npx tsx scripts/screenshot-demo.ts
 * (uses the same Chromium as the browser tests).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { startTandem } from '../src/runtime/start-tandem.ts';
import { openBrowser } from '../test/workspace/browser.ts';

const target = fileURLToPath(new URL('../docs/demo.png', import.meta.url));
const runbooks = fileURLToPath(new URL('../runbooks', import.meta.url));

const dataDir = await mkdtemp(join(tmpdir(), 'tandem-screenshot-demo-'));
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
  await page.setViewportSize({ width: 1500, height: 1100 });
  await page.goto(runtime.workspace!.url);
  await page.getByText('Tandem connected').waitFor();
  await page.getByTestId('suggestions').getByRole('button', { name: 'Deploy demo/web (its deploy fails)' }).click();
  await page.locator('#composer-input').press('Enter');
  const thread = page.getByTestId('thread');
  await thread.getByRole('button', { name: 'Approve' }).click();
  await thread.getByRole('button', { name: 'Replan' }).click();
  await thread
    .getByText(/Plan v2 — /)
    .first()
    .waitFor({ timeout: 30_000 });
  await thread.getByRole('button', { name: 'Approve' }).last().click();
  await thread
    .getByText(/Succeeded: Roll demo\/web back/)
    .last()
    .waitFor({ timeout: 30_000 });
  await page.getByTestId('suggestions').getByRole('button', { name: 'Merge the PR I name' }).click();
  await page.mouse.move(0, 0); // no hover highlight in the picture
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  await runtime.close(5_000);
  await rm(dataDir, { recursive: true, force: true });
}
