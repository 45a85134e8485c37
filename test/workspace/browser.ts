import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** A system Chromium when the machine has one; playwright-core downloads no browser of its own. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * The browser to drive: the system one, else the Chromium that ships inside the @sparticuz/chromium
 * npm package (unpacked from node_modules to the temp folder on first use, nothing downloaded), so
 * `npm install && npm test` passes on a machine that has only Node.
 */
async function chromiumPath(): Promise<string> {
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  const packaged = (await import('@sparticuz/chromium')).default;
  return packaged.executablePath();
}
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless chromium with a fresh profile, removed on close. */
export async function openBrowser(): Promise<{ page: Page; context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'tandem-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: await chromiumPath(),
    args: ARGS,
    headless: true,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
