/**
 * Acting as a GitHub App: one Octokit for every tool, whose auth hook sends each request with the
 * installation token of the repository it names. octokit's App finds nothing by itself for a
 * request, so this file says which installation a request belongs to; minting and caching the
 * installation token is the library's (`app.octokit.auth({ type: 'installation' })`).
 */
import type { App } from 'octokit';
import { searchQueryRepositories } from './search-qualifiers.ts';

/** A failure of the App's own credentials or installations, before the request itself was sent. */
export class GithubAppError extends Error {
  override readonly name = 'GithubAppError';
  constructor(
    readonly code: 'app-not-installed' | 'app-installation-unknown' | 'app-unauthorized' | 'app-auth-failed',
    message: string,
    /** Nothing reached GitHub's API for the call itself, so trying again later is safe. */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** Renew a token this long before GitHub says it expires, so none runs out between minting and use. */
const TOKEN_RENEW_MARGIN_MS = 60_000;

interface Endpoint {
  url: string;
  headers: Record<string, string | number | undefined>;
  [parameter: string]: unknown;
}
type RequestFn = ((endpoint: Endpoint) => Promise<unknown>) & { endpoint: { merge(route: unknown, parameters?: unknown): Endpoint } };
interface InstallationToken {
  token: string;
  createdAt: string;
  expiresAt: string;
}
interface HttpishError {
  status?: number;
  message?: string;
  response?: unknown;
}

function statusOf(error: unknown): number | undefined {
  return (error as HttpishError | null)?.status;
}

/** Which account or repository a request is about: its owner/repo parameters, or a search's qualifiers. */
type Scope = { repo: string } | { account: string };

function scopeOf(endpoint: Endpoint): Scope | undefined {
  const { owner, repo } = endpoint;
  if (typeof owner === 'string' && typeof repo === 'string') return { repo: `${owner}/${repo}` };
  if (typeof endpoint.q === 'string') {
    const named = searchQueryRepositories(endpoint.q);
    if (Array.isArray(named) && named[0]) {
      const [account = '', name = '*'] = named[0].split('/');
      return name === '*' ? { account } : { repo: named[0] };
    }
  }
  return undefined;
}

/** An octokit `authStrategy`: octokit calls it with `{ ...its own options, ...auth }`, here `auth: { app }`. */
export function createInstallationAuth({ app }: { app: App }) {
  const installations = new Map<string, Promise<number>>();

  const lookUp = async (key: string, find: () => Promise<number>): Promise<number> => {
    const cached = installations.get(key);
    if (cached) return cached;
    const pending = find();
    installations.set(key, pending);
    // A repository the App is not installed on yet may be installed later: remember only successes.
    pending.catch(() => installations.delete(key));
    return pending;
  };

  const viaApp = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof GithubAppError) throw error;
      const status = statusOf(error);
      if (status === 401)
        throw new GithubAppError('app-unauthorized', "GitHub rejected Tandem's GitHub App credentials (401): check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY");
      const transient = status === undefined || status >= 500 || status === 429;
      throw new GithubAppError(
        'app-auth-failed',
        `could not get a GitHub App installation token for ${what}: ${(error as HttpishError).message ?? String(error)}`,
        transient,
      );
    }
  };

  const repoInstallation = (fullName: string) =>
    lookUp(repoKey(fullName), async () => {
      const [owner = '', repo = ''] = fullName.split('/');
      try {
        const { data } = await app.octokit.request('GET /repos/{owner}/{repo}/installation', { owner, repo });
        return data.id;
      } catch (error) {
        if (statusOf(error) === 404) throw new GithubAppError('app-not-installed', `Tandem's GitHub App is not installed on ${fullName}`);
        throw error;
      }
    });

  const accountInstallation = (account: string) =>
    lookUp(`account:${account.toLowerCase()}`, async () => {
      try {
        const { data } = await app.octokit.request('GET /users/{username}/installation', { username: account });
        return data.id;
      } catch (error) {
        if (statusOf(error) === 404) throw new GithubAppError('app-not-installed', `Tandem's GitHub App is not installed on ${account}`);
        throw error;
      }
    });

  /** A request that names no repository (a search without repo:) can only mean the App's one installation. */
  const onlyInstallation = () =>
    lookUp('only', async () => {
      const { data } = await app.octokit.request('GET /app/installations', { per_page: 2 });
      if (data.length === 1) return data[0]!.id;
      throw new GithubAppError(
        'app-installation-unknown',
        data.length === 0
          ? "Tandem's GitHub App is not installed anywhere"
          : "Tandem's GitHub App is installed on several accounts: name the repository (a search needs repo:owner/name)",
      );
    });

  const installationFor = (scope: Scope | undefined): Promise<number> => {
    if (!scope) return onlyInstallation();
    return 'repo' in scope ? repoInstallation(scope.repo) : accountInstallation(scope.account);
  };

  const token = async (installationId: number, refresh: boolean, target: string): Promise<string> => {
    let auth: InstallationToken;
    try {
      auth = (await app.octokit.auth({ type: 'installation', installationId, ...(refresh ? { refresh } : {}) })) as InstallationToken;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      // The installation is gone (the App was uninstalled): forget every repository we had found on it.
      installations.clear();
      throw new GithubAppError('app-not-installed', `Tandem's GitHub App is not installed on ${target} any more`);
    }
    // The library keeps a token for 59 minutes whatever GitHub said; GitHub's expiry is the one that counts.
    const lifetime = Date.parse(auth.expiresAt) - Date.parse(auth.createdAt);
    if (!refresh && Date.parse(auth.expiresAt) - Date.now() < Math.min(TOKEN_RENEW_MARGIN_MS, lifetime / 2)) return token(installationId, true, target);
    return auth.token;
  };

  async function hook(request: RequestFn, route: unknown, parameters?: unknown): Promise<unknown> {
    const endpoint = request.endpoint.merge(route, parameters);
    const scope = scopeOf(endpoint);
    const target = describe(scope);
    const installationId = await viaApp(target, () => installationFor(scope));
    endpoint.headers.authorization = `token ${await viaApp(target, () => token(installationId, false, target))}`;
    try {
      return await request(endpoint);
    } catch (error) {
      // A repository taken out of the installation answers 404: look its installation up afresh next time.
      if (statusOf(error) === 404 && scope && 'repo' in scope) installations.delete(repoKey(scope.repo));
      if (statusOf(error) !== 401) throw error;
      // GitHub refused the token before we thought it expired (revoked, or clocks apart). A 401 means the
      // request was not carried out, so sending it again with a fresh token cannot do anything twice.
      endpoint.headers.authorization = `token ${await viaApp(target, () => token(installationId, true, target))}`;
      return request(endpoint);
    }
  }

  return Object.assign(async () => ({ type: 'github-app-installations' as const }), { hook });
}

const repoKey = (fullName: string) => `repo:${fullName.toLowerCase()}`;

function describe(scope: Scope | undefined): string {
  if (!scope) return 'this request';
  return 'repo' in scope ? scope.repo : scope.account;
}
