/** GitHub settings: a token or a GitHub App (its key read and checked here), and the repository allow-list. */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError } from './config-error.ts';
import type { GithubAppEnv } from './env-schema.ts';

export interface GithubAppCredentials {
  appId: string;
  /** PKCS#8 PEM, whatever form it was given in. */
  privateKey: string;
}

export interface GithubSettings {
  token: string | undefined;
  apiUrl: string;
  app: GithubAppCredentials | undefined;
  repos: readonly string[] | undefined;
}

type GithubEnv = z.infer<typeof GithubAppEnv> & { GITHUB_TOKEN?: string | undefined; GITHUB_API_URL: string };

export function githubSettings(e: GithubEnv): { settings: GithubSettings; secrets: string[] } {
  const app = githubApp(e);
  const repos = e.TANDEM_REPOS.length ? e.TANDEM_REPOS.map((entry) => entry.toLowerCase()) : undefined;
  const settings = { token: e.GITHUB_TOKEN, apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''), app: app?.credentials, repos };
  return { settings, secrets: app?.secrets ?? [] };
}

function githubApp(e: GithubEnv): { credentials: GithubAppCredentials; secrets: string[] } | undefined {
  const { GITHUB_APP_ID: appId, GITHUB_APP_PRIVATE_KEY: inline, GITHUB_APP_PRIVATE_KEY_FILE: file } = e;
  if (!appId && !inline && !file) return undefined;
  if (!appId) throw new ConfigError('GITHUB_APP_ID', "required with a GitHub App private key: the numeric App ID from the App's settings page");
  // Two identities for the same writes would make "who did this" depend on code paths: pick one.
  if (e.GITHUB_TOKEN) throw new ConfigError('GITHUB_TOKEN', 'set either GITHUB_TOKEN or GITHUB_APP_ID with its private key, not both');
  if (inline && file) throw new ConfigError('GITHUB_APP_PRIVATE_KEY', 'set either GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, not both');
  if (!inline && !file)
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY', 'required because GITHUB_APP_ID is set (or GITHUB_APP_PRIVATE_KEY_FILE with the path of the .pem file)');
  const raw = inline ?? readKeyFile(file!);
  const privateKey = parsePrivateKey(raw, inline ? 'GITHUB_APP_PRIVATE_KEY' : 'GITHUB_APP_PRIVATE_KEY_FILE');
  return { credentials: { appId, privateKey }, secrets: [raw, privateKey, ...pemBodyLines(raw), ...pemBodyLines(privateKey)] };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY_FILE', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A .env file often holds the PEM on one line with `\n` escapes; GitHub signs with RS256, so the key must be RSA. */
function parsePrivateKey(raw: string, variable: string): string {
  const pem = raw.trim().replace(/\\n/g, '\n');
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
    return key.export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch {
    throw new ConfigError(
      variable,
      "not a valid RSA private key in PEM form: use the .pem file from the GitHub App's settings page (-----BEGIN RSA PRIVATE KEY----- …)",
    );
  }
}

/** Each base64 line of a key, so a key logged with its line breaks escaped is still redacted. */
function pemBodyLines(pem: string): string[] {
  return pem
    .replace(/\\n/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
}
