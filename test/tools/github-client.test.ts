import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../src/integrations/github/client.ts';
import { createGithubCreateIssueTool } from '../../src/integrations/tools/github/github-create-issue.ts';
import { createGithubGetRepoTool } from '../../src/integrations/tools/github/github-get-repo.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { errorOf, okOutput, runTool } from './tool-context.ts';

let github: FakeGithub;
beforeEach(async () => {
  github = await startFakeGithub();
  github.addRepo('acme/api');
});
afterEach(() => github.close());

/** The production client, with every "second" of waiting shrunk to a millisecond. */
function productionClient() {
  return createGithubClient({
    token: 'ghp_prodtoken00000000000000000000000',
    apiUrl: `${github.url}/`,
    production: true,
    retryAfterBaseValue: 1,
    rateLimitRetries: 2,
  });
}
const repoCalls = () => github.requests.filter((r) => r.path === '/repos/acme/api').length;

describe('GitHub client', () => {
  it('sends the token and talks to the configured base URL', async () => {
    okOutput(await runTool(createGithubGetRepoTool(productionClient()), { repo: 'acme/api' }));
    expect(github.requests[0]!.authorization).toBe('token ghp_prodtoken00000000000000000000000');
  });

  it('works against a GitHub Enterprise Server style base URL (/api/v3)', async () => {
    const ghes = await startFakeGithub({ pathPrefix: '/api/v3' });
    try {
      ghes.addRepo('acme/api');
      const client = createGithubClient({ token: 't0ken', apiUrl: ghes.url, production: false });
      expect(ghes.url).toMatch(/\/api\/v3$/);
      expect(okOutput(await runTool(createGithubGetRepoTool(client), { repo: 'acme/api' }))['fullName']).toBe('acme/api');
    } finally {
      await ghes.close();
    }
  });

  it('in production waits out a 429 and a primary rate limit (403, remaining 0) and retries', async () => {
    const tool = createGithubGetRepoTool(productionClient());
    github.fault({ method: 'GET', path: /^\/repos\/acme\/api$/, status: 429, headers: { 'retry-after': '1' }, body: { message: 'Too many requests' } });
    okOutput(await runTool(tool, { repo: 'acme/api' }));
    const reset = String(Math.floor(Date.now() / 1000) + 1);
    github.fault({
      method: 'GET',
      path: /^\/repos\/acme\/api$/,
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      body: { message: 'API rate limit exceeded' },
    });
    okOutput(await runTool(tool, { repo: 'acme/api' }));
    expect(repoCalls()).toBe(4);
  });

  it('retries a secondary rate limit a bounded number of times, then reports a transient error', async () => {
    github.fault({
      method: 'GET',
      path: /^\/repos\/acme\/api$/,
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit' },
      times: 10,
    });
    const error = errorOf(await runTool(createGithubGetRepoTool(productionClient()), { repo: 'acme/api' }));
    expect(error).toMatchObject({ transient: true, code: 'rate-limited' });
    expect(repoCalls()).toBe(3);
  });

  it('retries a read after a 5xx but never repeats a write', async () => {
    const client = productionClient();
    github.fault({ method: 'GET', path: /^\/repos\/acme\/api$/, status: 503 });
    okOutput(await runTool(createGithubGetRepoTool(client), { repo: 'acme/api' }));
    expect(repoCalls()).toBe(2);

    github.fault({ method: 'POST', path: /\/issues$/, status: 500 });
    const error = errorOf(await runTool(createGithubCreateIssueTool(client), { repo: 'acme/api', title: 'once' }));
    expect(error.uncertain).toBe(true);
    expect(error.transient).toBeFalsy();
    expect(github.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('in tests (production false) a rate limit comes straight back as a transient error', async () => {
    github.fault({ method: 'GET', path: /^\/repos\/acme\/api$/, status: 429, headers: { 'retry-after': '60' } });
    const client = createGithubClient({ token: 't0ken', apiUrl: github.url, production: false });
    expect(errorOf(await runTool(createGithubGetRepoTool(client), { repo: 'acme/api' }))).toMatchObject({ transient: true, code: 'rate-limited' });
    expect(repoCalls()).toBe(1);
  });
});
