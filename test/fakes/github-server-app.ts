/**
 * The fake GitHub as GitHub sees a GitHub App: the App authenticates with an RS256 JWT (verified here
 * against the test's public key, `iss` = the App ID), finds the installation for a repository or an
 * account, and mints installation tokens (`ghs_…`) that expire. Every other request must carry a live
 * installation token of an installation that covers the repository, or it gets what GitHub answers.
 */
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import type { RouteAnswer } from './github-server-routes.ts';

interface FakeInstallation {
  id: number;
  account: string;
  /** Repository names on the account, or every repository of it. */
  repositories: string[] | 'all';
}

interface FakeIssuedToken {
  token: string;
  installationId: number;
  expiresAt: number;
}

export interface FakeGithubApp {
  appId: string;
  installations: FakeInstallation[];
  tokens: FakeIssuedToken[];
  /** Why each refused JWT or token was refused, for tests that check the client never sent a bad one. */
  refusals: string[];
  /** How long a minted token lives; GitHub's is an hour, tests shorten it. */
  tokenTtlMs: number;
  install(account: string, repositories?: string[]): FakeInstallation;
  /** The App is uninstalled: its tokens stop working and its installation is gone. */
  uninstall(installation: FakeInstallation): void;
  /** Every token minted so far stops working, as if an hour had passed. */
  expireTokens(): void;
}

export interface FakeGithubAppOptions {
  appId: string;
  publicKey: KeyObject;
  tokenTtlMs?: number;
}

const unauthorized = (message: string): RouteAnswer => ({ status: 401, body: { message, documentation_url: 'https://docs.github.com/rest' } });
const notFound: RouteAnswer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

let nextInstallationId = 5000;

export function createFakeGithubApp(options: FakeGithubAppOptions) {
  const state: FakeGithubApp = {
    appId: options.appId,
    installations: [],
    tokens: [],
    refusals: [],
    tokenTtlMs: options.tokenTtlMs ?? 3_600_000,
    install(account, repositories) {
      const installation = { id: nextInstallationId++, account, repositories: repositories ?? ('all' as const) };
      state.installations.push(installation);
      return installation;
    },
    uninstall(installation) {
      state.installations = state.installations.filter((candidate) => candidate.id !== installation.id);
    },
    expireTokens() {
      for (const token of state.tokens) token.expiresAt = Math.min(token.expiresAt, Date.now() - 1);
    },
  };

  const refuse = (reason: string) => {
    state.refusals.push(reason);
    return unauthorized(reason);
  };

  function checkJwt(authorization: string | undefined): string | undefined {
    const jwt = /^bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!jwt) return 'A JSON web token could not be decoded';
    const [header = '', payload = '', signature = ''] = jwt.split('.');
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      if (decode(header).alg !== 'RS256') return "'alg' must be RS256";
      claims = decode(payload);
    } catch {
      return 'A JSON web token could not be decoded';
    }
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), options.publicKey, Buffer.from(signature, 'base64url'))) return 'signature does not match';
    const now = Math.floor(Date.now() / 1000);
    if (String(claims.iss) !== state.appId) return `'Issuer' claim ('iss') must be ${state.appId}`;
    if (typeof claims.exp !== 'number' || claims.exp <= now) return "'Expiration time' claim ('exp') is too far in the past";
    if (typeof claims.iat !== 'number' || claims.iat > now + 60 || claims.exp - claims.iat > 660) return "'Issued at' claim ('iat') is invalid";
    return undefined;
  }

  const covers = (installation: FakeInstallation, fullName: string) => {
    const [owner = '', name = ''] = fullName.toLowerCase().split('/');
    return (
      installation.account.toLowerCase() === owner &&
      (installation.repositories === 'all' || installation.repositories.some((repo) => repo.toLowerCase() === name))
    );
  };
  const installationJson = (installation: FakeInstallation) => ({
    id: installation.id,
    app_id: Number(state.appId),
    account: { login: installation.account, type: 'Organization' },
    repository_selection: installation.repositories === 'all' ? 'all' : 'selected',
    permissions: { contents: 'write', issues: 'write', pull_requests: 'write', actions: 'write', metadata: 'read' },
  });

  /** The App's own endpoints, authenticated by JWT; undefined for any other path. */
  function answerAppRoute(method: string, path: string, authorization: string | undefined): RouteAnswer | undefined {
    const repoInstallation = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(path);
    const accountInstallation = /^\/(?:users|orgs)\/([^/]+)\/installation$/.exec(path);
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    const isAppRoute = (method === 'GET' && (repoInstallation || accountInstallation || path === '/app/installations')) || (method === 'POST' && mint);
    if (!isAppRoute) return undefined;
    const bad = checkJwt(authorization);
    if (bad) return refuse(bad);
    if (path === '/app/installations') return { status: 200, body: state.installations.map(installationJson) };
    if (repoInstallation) {
      const found = state.installations.find((installation) => covers(installation, `${repoInstallation[1]}/${repoInstallation[2]}`));
      return found ? { status: 200, body: installationJson(found) } : notFound;
    }
    if (accountInstallation) {
      const found = state.installations.find((installation) => installation.account.toLowerCase() === accountInstallation[1]!.toLowerCase());
      return found ? { status: 200, body: installationJson(found) } : notFound;
    }
    const installation = state.installations.find((candidate) => candidate.id === Number(mint![1]));
    if (!installation) return notFound;
    const issued = {
      token: `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x')}`,
      installationId: installation.id,
      expiresAt: Date.now() + state.tokenTtlMs,
    };
    state.tokens.push(issued);
    return { status: 201, body: { token: issued.token, expires_at: new Date(issued.expiresAt).toISOString(), ...installationJson(installation) } };
  }

  /** Any other request: a live installation token is required; it sees only what its installation covers. */
  function authorize(authorization: string | undefined): { answer: RouteAnswer } | { sees: (fullName: string) => boolean; installationId: number } {
    const presented = /^(?:token|bearer) (ghs_\S+)$/i.exec(authorization ?? '')?.[1];
    const issued = state.tokens.find((token) => token.token === presented);
    if (!issued) return { answer: refuse('Bad credentials') };
    if (issued.expiresAt <= Date.now()) return { answer: refuse('Bad credentials (token expired)') };
    const installation = state.installations.find((candidate) => candidate.id === issued.installationId);
    if (!installation) return { answer: refuse('Bad credentials (installation removed)') };
    return { sees: (fullName) => covers(installation, fullName), installationId: installation.id };
  }

  return { state, answerAppRoute, authorize };
}

export { notFound as appNotFound };
