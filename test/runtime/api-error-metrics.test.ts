import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../src/integrations/github/client.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { countGithubErrors } from '../../src/runtime/api-error-metrics.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';

describe('GitHub API errors in /metrics', () => {
  let github: FakeGithub;
  beforeAll(async () => {
    github = await startFakeGithub();
    github.addRepo('acme/api');
  });
  afterAll(() => github.close());

  it('counts errors and rate limits by kind, and the caller still sees the error', async () => {
    const metrics = createMetrics();
    const client = createGithubClient({ token: 'test-token', apiUrl: github.url, production: false });
    countGithubErrors(client, metrics);
    await expect(client.rest.repos.get({ owner: 'acme', repo: 'missing' })).rejects.toMatchObject({ status: 404 });
    github.fault({
      method: 'GET',
      path: /^\/repos\/acme\/api$/,
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' },
      body: { message: 'API rate limit exceeded' },
    });
    await expect(client.rest.repos.get({ owner: 'acme', repo: 'api' })).rejects.toMatchObject({ status: 403 });
    expect((await client.rest.repos.get({ owner: 'acme', repo: 'api' })).status).toBe(200);
    const text = await metrics.registry.metrics();
    expect(text).toContain('tandem_api_errors_total{api="github",kind="error"} 1');
    expect(text).toContain('tandem_api_errors_total{api="github",kind="rate_limited"} 1');
  });
});
