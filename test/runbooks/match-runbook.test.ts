import { describe, expect, it } from 'vitest';
import { matchRunbook } from '../../src/runbooks/match-runbook.ts';
import { RunbookFileSchema, runbookFromFile, type Runbook } from '../../src/runbooks/runbook.ts';

function runbook(name: string, pattern: string, steps: object[], goal = 'Do {x}'): Runbook {
  return runbookFromFile(RunbookFileSchema.parse({ name, pattern, plan: { goal, steps } }), `${name}.yml`);
}

const deploy = runbook(
  'deploy',
  'deploy {ref} of {repo} to {env}',
  [
    { id: 's1', title: 'Run deploy.yml on {ref}', tool: 'github_dispatch_workflow', args: { repo: '{repo}', workflow: 'deploy.yml', ref: '{ref}', inputs: { env: '{env}' } } },
    { id: 's2', title: 'Check {env}', tool: 'http_check', dependsOn: ['s1'], args: { url: 'https://{env}.example.com/healthz', contains: '{{steps.s1.output.runId}}' } },
  ],
  'Deploy {ref} of {repo} to {env}',
);
const health = runbook('check-health', 'check health of {url}', [{ id: 's1', title: 'GET {url}', tool: 'http_check', args: { url: '{url}' } }], 'Check {url}');

describe('matchRunbook', () => {
  it('fills every placeholder in goal, titles and nested args, and leaves step references alone', () => {
    const found = matchRunbook('Deploy v2.4.0 of acme/api to staging', [health, deploy]);
    expect(found?.runbook.name).toBe('deploy');
    expect(found?.params).toEqual({ ref: 'v2.4.0', repo: 'acme/api', env: 'staging' });
    expect(found?.plan.goal).toBe('Deploy v2.4.0 of acme/api to staging');
    expect(found?.plan.steps[0]).toMatchObject({ title: 'Run deploy.yml on v2.4.0', args: { repo: 'acme/api', workflow: 'deploy.yml', ref: 'v2.4.0', inputs: { env: 'staging' } } });
    expect(found?.plan.steps[1]?.args).toEqual({ url: 'https://staging.example.com/healthz', contains: '{{steps.s1.output.runId}}' });
    // The runbook itself is untouched, so the next match starts from the placeholders again.
    expect(deploy.plan.steps[0]?.args.ref).toBe('{ref}');
  });

  it('takes quoted values with spaces, Slack links, extra spaces and a final full stop', () => {
    expect(matchRunbook('deploy "release 7" of acme/api to prod', [deploy])?.params.ref).toBe('release 7');
    expect(matchRunbook('check health of <http://127.0.0.1:8080/healthz>.', [health])?.params.url).toBe('http://127.0.0.1:8080/healthz');
    expect(matchRunbook('check health of <http://127.0.0.1:8080/|status page>', [health])?.params.url).toBe('http://127.0.0.1:8080/');
    expect(matchRunbook('  CHECK   health of http://127.0.0.1/  ', [health])?.plan.steps[0]?.args.url).toBe('http://127.0.0.1/');
  });

  it('does not match a task that only resembles the pattern', () => {
    expect(matchRunbook('deploy main to prod', [deploy, health])).toBeUndefined();
    expect(matchRunbook('please deploy main of acme/api to prod now', [deploy])).toBeUndefined();
    expect(matchRunbook('check health of two urls', [health])).toBeUndefined();
  });

  it('refuses a value that would smuggle in a step reference', () => {
    expect(matchRunbook('check health of {{steps.s1.output.token}}', [health])).toBeUndefined();
  });

  it('prefers the more specific pattern and requires a repeated parameter to repeat its value', () => {
    const specific = runbook('deploy-prod', 'deploy {ref} of {repo} to prod', [{ id: 's1', title: 't', tool: 'http_check', args: { url: 'https://prod.example.com' } }], 'Deploy {ref}');
    expect(matchRunbook('deploy main of acme/api to prod', [deploy, specific])?.runbook.name).toBe('deploy-prod');
    expect(matchRunbook('deploy main of acme/api to staging', [deploy, specific])?.runbook.name).toBe('deploy');
    const mirror = runbook('mirror', 'copy {a} to {a}-backup', [{ id: 's1', title: '{a}', tool: 'wait', args: {} }], 'Copy {a}');
    expect(matchRunbook('copy data to data-backup', [mirror])?.params).toEqual({ a: 'data' });
    expect(matchRunbook('copy data to other-backup', [mirror])).toBeUndefined();
  });
});
