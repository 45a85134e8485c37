/**
 * Tandem as a GitHub App, through octokit's App support against the fake GitHub: every request carries
 * the installation token of the repository it names, minted with a JWT the fake verifies, renewed when
 * it runs out; a repository the App is not installed on is one clear error.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createGithubClient } from '../../src/integrations/github/client.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { errorOf, okOutput, runTool } from './tool-context.ts';

const APP_ID = '424242';

function rsaKeys(): { pkcs1Pem: string; publicKey: KeyObject } {
  // GitHub's App settings page downloads a PKCS#1 ("BEGIN RSA PRIVATE KEY") file; use the same form.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { pkcs1Pem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey };
}

const keys = rsaKeys();
let github: FakeGithub | undefined;

afterEach(async () => {
  await github?.close();
  github = undefined;
});

async function appGithub(options: { tokenTtlMs?: number; pathPrefix?: string; signingKey?: string } = {}) {
  github = await startFakeGithub({
    app: { appId: APP_ID, publicKey: keys.publicKey, ...(options.tokenTtlMs ? { tokenTtlMs: options.tokenTtlMs } : {}) },
    ...(options.pathPrefix ? { pathPrefix: options.pathPrefix } : {}),
  });
  // Through loadConfig, as start-up does: the PEM arrives on one line with \n escapes, as in a .env file.
  const config = loadConfig({
    GITHUB_APP_ID: APP_ID,
    GITHUB_APP_PRIVATE_KEY: (options.signingKey ?? keys.pkcs1Pem).trim().replace(/\n/g, '\\n'),
    GITHUB_API_URL: github.url,
  });
  const octokit = createGithubClient({ app: config.github.app!, apiUrl: config.github.apiUrl, production: false });
  const tools = new Map(createBuiltinTools({ github: octokit, slack: undefined, llm: undefined, httpAllow: [] }).map((tool) => [tool.name, tool]));
  return { fake: github, app: github.app!, tool: (name: string) => tools.get(name) as AnyTool };
}

const apiRequests = (fake: FakeGithub) => fake.requests.filter((request) => !/installation|^\/app\b/.test(request.path));

describe('GitHub as an App', () => {
  it('acts on each repository with the token of its own installation, minted with a verified JWT', async () => {
    const { fake, app, tool } = await appGithub();
    fake.addRepo('acme/api');
    fake.addRepo('globex/web');
    fake.addIssue('globex/web', { title: 'Slow page' });
    const acme = app.install('acme');
    const globex = app.install('globex', ['web']);

    okOutput(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'Flaky deploy' }));
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    okOutput(await runTool(tool('github_comment'), { repo: 'globex/web', number: 1, body: 'hi' }));

    expect(app.refusals).toEqual([]);
    const calls = apiRequests(fake).map((request) => [request.path, request.installationId]);
    expect(calls).toEqual([
      ['/repos/acme/api/issues', acme.id],
      ['/repos/acme/api', acme.id],
      ['/repos/globex/web/issues/1/comments', globex.id],
    ]);
    expect(fake.repos.get('acme/api')!.issues.map((issue) => issue.title)).toEqual(['Flaky deploy']);
    // The installation of a repository is looked up once, and one token per installation is minted.
    expect(fake.requests.filter((request) => request.path === '/repos/acme/api/installation')).toHaveLength(1);
    expect(app.tokens.map((token) => token.installationId)).toEqual([acme.id, globex.id]);
  });

  it('renews a token GitHub expired mid-run and does the write once', async () => {
    const { fake, app, tool } = await appGithub();
    fake.addRepo('acme/api');
    app.install('acme');
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    app.expireTokens();

    const created = okOutput(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'After expiry' }));

    expect(created.number).toBe(1);
    expect(fake.repos.get('acme/api')!.issues).toHaveLength(1);
    expect(app.refusals).toEqual(['Bad credentials (token expired)']);
    expect(app.tokens).toHaveLength(2);
  });

  it('renews a token before GitHub says it runs out, so no request is refused', async () => {
    const { fake, app, tool } = await appGithub({ tokenTtlMs: 2_000 });
    fake.addRepo('acme/api');
    app.install('acme');
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    expect(app.tokens).toHaveLength(1);
    // Past half its life the token is replaced before use, while GitHub would still take it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    expect(app.refusals).toEqual([]);
    expect(app.tokens).toHaveLength(2);
  });

  it('fails a step on a repository the App is not installed on with one clear line', async () => {
    const { fake, app, tool } = await appGithub();
    fake.addRepo('acme/api');
    fake.addRepo('acme/secret');
    app.install('acme', ['api']);

    const error = errorOf(await runTool(tool('github_create_issue'), { repo: 'acme/secret', title: 'x' }));

    expect(error).toEqual({ message: "Tandem's GitHub App is not installed on acme/secret", code: 'app-not-installed' });
    expect(fake.repos.get('acme/secret')!.issues).toEqual([]);
  });

  it('says so clearly when the App is uninstalled mid-run, and finds a new installation after', async () => {
    const { fake, app, tool } = await appGithub();
    fake.addRepo('acme/api');
    const first = app.install('acme');
    okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    app.uninstall(first);

    const error = errorOf(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'x' }));
    expect(error).toEqual({ message: "Tandem's GitHub App is not installed on acme/api any more", code: 'app-not-installed' });

    const second = app.install('acme');
    okOutput(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'after reinstall' }));
    expect(apiRequests(fake).at(-1)!.installationId).toBe(second.id);
    expect(fake.repos.get('acme/api')!.issues.map((issue) => issue.title)).toEqual(['after reinstall']);
  });

  it('says the App credentials are wrong when GitHub refuses its JWT', async () => {
    const { fake, app, tool } = await appGithub({ signingKey: rsaKeys().pkcs1Pem });
    fake.addRepo('acme/api');
    app.install('acme');
    const error = errorOf(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'x' }));
    expect(error).toEqual({
      message: "GitHub rejected Tandem's GitHub App credentials (401): check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY",
      code: 'app-unauthorized',
    });
    expect(app.refusals).toEqual(['signature does not match']);
  });

  it('works against GitHub Enterprise Server under /api/v3', async () => {
    const { fake, app, tool } = await appGithub({ pathPrefix: '/api/v3' });
    fake.addRepo('acme/api');
    app.install('acme');
    expect(okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }))).toMatchObject({ fullName: 'acme/api' });
  });

  it('searches with the installation its repo: qualifier names, and asks for one when it cannot tell', async () => {
    const { fake, app, tool } = await appGithub();
    fake.addRepo('acme/api');
    fake.addRepo('globex/web');
    fake.addIssue('acme/api', { title: 'Login bug' });
    fake.addIssue('globex/web', { title: 'Login bug too' });
    const acme = app.install('acme');
    app.install('globex');

    const found = okOutput(await runTool(tool('github_search_issues'), { query: 'repo:acme/api login' }));
    expect(found.totalCount).toBe(1);
    expect(apiRequests(fake).at(-1)!.installationId).toBe(acme.id);

    const byOrg = okOutput(await runTool(tool('github_search_issues'), { query: 'org:globex login' }));
    expect((byOrg.items as { repo: string }[]).map((item) => item.repo)).toEqual(['globex/web']);

    const error = errorOf(await runTool(tool('github_search_issues'), { query: 'login' }));
    expect(error.message).toBe("Tandem's GitHub App is installed on several accounts: name the repository (a search needs repo:owner/name)");
  });
});
