import { App, Octokit } from 'octokit';
import { createInstallationAuth } from './app-auth.ts';

export type { Octokit } from 'octokit';

/** A token, or a GitHub App whose installation on each repository is used for that repository. */
type GithubCredentials = { token: string } | { app: { appId: string; privateKey: string } };

export type GithubClientOptions = GithubCredentials & GithubClientSettings;

interface GithubClientSettings {
  /** REST base URL without a trailing slash: https://api.github.com, https://ghe.example.com/api/v3, or a test server. */
  apiUrl: string;
  /** Production keeps octokit's retry and throttling plugins on; tests turn them off unless they tune them. */
  production: boolean;
  /** How many times a rate-limited request is retried after waiting (default 2). */
  rateLimitRetries?: number;
  /** Milliseconds per second of `retry-after` and of the retry plugin's backoff (default 1000); tests shrink it. */
  retryAfterBaseValue?: number;
  /** Force the plugins on (true) or off (false) whatever `production` says. */
  plugins?: boolean;
  log?: { warn(obj: object, msg?: string): void };
}

/**
 * The one place an Octokit is built. Writes opt out of the retry plugin per call (see github-call.ts),
 * because retrying a POST that may have reached GitHub can create the object twice.
 */
export function createGithubClient(options: GithubClientOptions): Octokit {
  const pluginsOn = options.plugins ?? options.production;
  const maxRetries = options.rateLimitRetries ?? 2;
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    options.log?.warn({ kind, method: request.method, url: request.url, retryAfter, retryCount }, 'GitHub rate limit');
    return retryCount < maxRetries;
  };
  const Configured = Octokit.defaults({
    baseUrl: options.apiUrl.replace(/\/+$/, ''),
    userAgent: 'tandem-chatops',
    retry: { enabled: pluginsOn, ...(options.retryAfterBaseValue !== undefined ? { retryAfterBaseValue: options.retryAfterBaseValue } : {}) },
    throttle: pluginsOn
      ? {
          enabled: true,
          onRateLimit: onLimit('primary'),
          onSecondaryRateLimit: onLimit('secondary'),
          ...(options.retryAfterBaseValue !== undefined ? { retryAfterBaseValue: options.retryAfterBaseValue } : {}),
        }
      : { enabled: false },
    // octokit logs deprecations and plugin notices through console by default; keep them quiet.
    log: QUIET,
  });
  if ('token' in options) return new Configured({ auth: options.token });
  // The App's own calls (finding installations, minting tokens) go to the same API with the same plugins.
  const app = new App({ appId: options.app.appId, privateKey: options.app.privateKey, Octokit: Configured, log: QUIET });
  return new Configured({ authStrategy: createInstallationAuth, auth: { app } });
}

const QUIET = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** No token and no App, no client: the GitHub tools then answer "GITHUB_TOKEN is not configured". */
export function createGithubClientIfConfigured(
  options: GithubClientSettings & { token: string | undefined; app?: { appId: string; privateKey: string } | undefined },
): Octokit | undefined {
  const { token, app, ...settings } = options;
  if (app) return createGithubClient({ ...settings, app });
  return token ? createGithubClient({ ...settings, token }) : undefined;
}
