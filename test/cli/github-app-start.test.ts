import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTandem } from './tandem-process.ts';

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-app-key-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('tandem start with a GitHub App', () => {
  it('stops on a bad private key with one line naming the variable, and never echoes the key', async () => {
    const badKey = '-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEAtruncatedtruncatedtruncated\\n-----END RSA PRIVATE KEY-----';
    const tandem = runTandem(['start'], { GITHUB_APP_ID: '12345', GITHUB_APP_PRIVATE_KEY: badKey, DATA_DIR: path.join(cwd, 'data') }, cwd);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr().trim()).toBe(
      "tandem: configuration error: GITHUB_APP_PRIVATE_KEY: not a valid RSA private key in PEM form: use the .pem file from the GitHub App's settings page (-----BEGIN RSA PRIVATE KEY----- …)",
    );
    expect(tandem.stdout() + tandem.stderr()).not.toContain('truncatedtruncated');
  }, 60_000);
});
