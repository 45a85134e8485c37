import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { configProblem } from '../helpers/config-problem.ts';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const keyBody = pkcs1.split('\n')[1]!;

describe('GitHub App settings', () => {
  it('takes the key as PEM, as a one-line PEM with \\n escapes, or from a file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-key-'));
    writeFileSync(path.join(dir, 'app.pem'), pkcs1);
    for (const env of [
      { GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: pkcs1 },
      { GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: pkcs1.trim().replace(/\n/g, '\\n') },
      { GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY_FILE: path.join(dir, 'app.pem') },
    ]) {
      const config = loadConfig(env);
      expect(config.github.app?.appId).toBe('12');
      expect(config.github.app?.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(config.github.token).toBeUndefined();
    }
  });

  it('stops start-up with one line for a bad key, a missing half, or two identities', () => {
    expect(configProblem({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: 'not a key' })).toBe(
      "GITHUB_APP_PRIVATE_KEY: not a valid RSA private key in PEM form: use the .pem file from the GitHub App's settings page (-----BEGIN RSA PRIVATE KEY----- …)",
    );
    expect(configProblem({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: pkcs1.replace(keyBody, keyBody.slice(0, 20)) })).toMatch(
      /^GITHUB_APP_PRIVATE_KEY: not a valid RSA private key/,
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(configProblem({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: ec })).toMatch(/^GITHUB_APP_PRIVATE_KEY: not a valid RSA private key/);
    expect(configProblem({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY_FILE: '/nonexistent/app.pem' })).toBe(
      'GITHUB_APP_PRIVATE_KEY_FILE: cannot read /nonexistent/app.pem (ENOENT)',
    );
    expect(configProblem({ GITHUB_APP_ID: '12' })).toMatch(/^GITHUB_APP_PRIVATE_KEY: required because GITHUB_APP_ID is set/);
    expect(configProblem({ GITHUB_APP_PRIVATE_KEY: pkcs1 })).toMatch(/^GITHUB_APP_ID: required with a GitHub App private key/);
    expect(configProblem({ GITHUB_APP_ID: 'Iv1.abc', GITHUB_APP_PRIVATE_KEY: pkcs1 })).toMatch(/^GITHUB_APP_ID: expected the App's numeric ID/);
    expect(configProblem({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: pkcs1, GITHUB_TOKEN: 'ghp_x' })).toBe(
      'GITHUB_TOKEN: set either GITHUB_TOKEN or GITHUB_APP_ID with its private key, not both',
    );
  });

  it('keeps the key out of logs in every form it may be written', () => {
    const config = loadConfig({ GITHUB_APP_ID: '12', GITHUB_APP_PRIVATE_KEY: pkcs1.trim().replace(/\n/g, '\\n') });
    let written = '';
    const logger = createLogger({
      level: 'info',
      secrets: config.secrets,
      destination: new Writable({ write: (chunk, _enc, done) => ((written += String(chunk)), done()) }),
    });
    logger.info({ raw: pkcs1, escaped: pkcs1.replace(/\n/g, '\\n'), converted: config.github.app!.privateKey, line: keyBody }, 'oops');
    expect(written).toContain('oops');
    expect(written).not.toContain(keyBody);
    for (const line of config.github.app!.privateKey.split('\n').filter((l) => l.length > 20)) expect(written).not.toContain(line);
  });
});

describe('TANDEM_REPOS', () => {
  it('is unset by default and lower-cased when given', () => {
    expect(loadConfig({}).github.repos).toBeUndefined();
    expect(loadConfig({ TANDEM_REPOS: 'Acme/API, globex/*' }).github.repos).toEqual(['acme/api', 'globex/*']);
  });

  it('names the variable for a malformed entry', () => {
    expect(configProblem({ TANDEM_REPOS: 'acme/api,api' })).toBe('TANDEM_REPOS: expected owner/name or owner/* entries, comma-separated');
    expect(configProblem({ TANDEM_REPOS: '*/api' })).toMatch(/^TANDEM_REPOS: /);
    for (const entry of ['acme/..', 'acme/.', '-acme/api', 'ac_me/api'])
      expect(configProblem({ TANDEM_REPOS: `acme/api,${entry}` })).toMatch(/^TANDEM_REPOS: /);
    expect(loadConfig({ TANDEM_REPOS: 'acme/.github,acme/a..b' }).github.repos).toEqual(['acme/.github', 'acme/a..b']);
  });
});
