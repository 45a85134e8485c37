import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool, ToolContext } from '../../src/agent/ports/tool.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { startFakeGithub, type FakeGithub, type FakeRepo } from '../fakes/github-server.ts';
import { errorOf, okOutput, runTool, testGithub, toolContext } from './tool-context.ts';

let github: FakeGithub;
let repo: FakeRepo;
let tools: Map<string, AnyTool>;

beforeEach(async () => {
  github = await startFakeGithub();
  repo = github.addRepo('acme/api');
  github.addIssue('acme/api', { title: 'Existing issue' });
  github.addPull('acme/api', { title: 'Feature', head: 'feat/x' });
  tools = new Map(createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] }).map((t) => [t.name, t]));
});
afterEach(() => github.close());

const tool = (name: string) => tools.get(name)!;

/** The write reaches GitHub and takes effect, then the connection drops before the answer: the crash case. */
async function runWithLostAnswer(name: string, args: unknown, method: string, path: RegExp, ctx: ToolContext) {
  github.fault({ method, path, drop: true, afterEffect: true });
  const error = errorOf(await runTool(tool(name), args, ctx));
  expect(error.uncertain).toBe(true);
}

async function reconcile(name: string, args: unknown, ctx: ToolContext) {
  const t = tool(name);
  return t.reconcile!(t.input.parse(args), ctx);
}

describe('write tools reconcile after a crash', () => {
  it('github_create_issue: finds the issue by its marker, never creates a second one', async () => {
    const args = { repo: 'acme/api', title: 'Deploy failed', body: 'details', labels: ['ops'] };
    const ctx = toolContext({ stepId: 'create' });
    await runWithLostAnswer('github_create_issue', args, 'POST', /\/issues$/, ctx);
    const created = repo.issues.filter((issue) => issue.title === 'Deploy failed');
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toContain(`<!-- tandem:${ctx.runId}/create -->`);

    const result = await reconcile('github_create_issue', args, ctx);
    expect(result).toEqual({
      status: 'done',
      output: { number: created[0]!.number, url: `https://github.example/acme/api/issues/${created[0]!.number}`, title: 'Deploy failed' },
    });
    expect(await reconcile('github_create_issue', args, toolContext({ stepId: 'create' }))).toEqual({ status: 'not-done' });
    expect(repo.issues.filter((issue) => issue.title === 'Deploy failed')).toHaveLength(1);
  });

  it('github_create_issue: a completed run and its reconcile agree on the output', async () => {
    const args = { repo: 'acme/api', title: 'Rotate keys' };
    const ctx = toolContext();
    const output = okOutput(await runTool(tool('github_create_issue'), args, ctx));
    expect(await reconcile('github_create_issue', args, ctx)).toEqual({ status: 'done', output });
  });

  it('github_create_issue: pages through a busy repo, and says unknown rather than not-done past its page limit', async () => {
    const args = { repo: 'acme/api', title: 'Ours' };
    const ctx = toolContext();
    await runWithLostAnswer('github_create_issue', args, 'POST', /\/issues$/, ctx);
    for (let i = 0; i < 150; i++) github.addIssue('acme/api', { title: `later ${i}` });
    expect(await reconcile('github_create_issue', args, ctx)).toMatchObject({ status: 'done', output: { title: 'Ours' } });
    for (let i = 0; i < 400; i++) github.addIssue('acme/api', { title: `even later ${i}` });
    expect((await reconcile('github_create_issue', args, ctx)).status).toBe('unknown');
  });

  it('github_comment: finds the comment by marker on that issue only', async () => {
    const args = { repo: 'acme/api', number: 1, body: 'Deployed v2' };
    const ctx = toolContext();
    await runWithLostAnswer('github_comment', args, 'POST', /\/issues\/1\/comments$/, ctx);
    const result = await reconcile('github_comment', args, ctx);
    expect(result).toMatchObject({ status: 'done', output: { number: 1, url: expect.stringContaining('/issues/1#issuecomment-') } });
    expect(repo.comments).toHaveLength(1);
    expect(await reconcile('github_comment', args, toolContext())).toEqual({ status: 'not-done' });
  });

  it('github_add_labels: done once every label is present, not-done before', async () => {
    const args = { repo: 'acme/api', number: 1, labels: ['deployed', 'v2'] };
    expect(await reconcile('github_add_labels', args, toolContext())).toEqual({ status: 'not-done' });
    const ctx = toolContext();
    await runWithLostAnswer('github_add_labels', args, 'POST', /\/issues\/1\/labels$/, ctx);
    expect(await reconcile('github_add_labels', args, ctx)).toEqual({
      status: 'done',
      output: { number: 1, url: 'https://github.example/acme/api/issues/1', labels: ['deployed', 'v2'] },
    });
  });

  it('github_create_release: found by tag; a tag released before the step started is not claimed', async () => {
    const args = { repo: 'acme/api', tag: 'v2.0.0', name: 'v2', body: 'notes' };
    expect(await reconcile('github_create_release', args, toolContext())).toEqual({ status: 'not-done' });
    const ctx = toolContext();
    await runWithLostAnswer('github_create_release', args, 'POST', /\/releases$/, ctx);
    expect(await reconcile('github_create_release', args, ctx)).toMatchObject({
      status: 'done',
      output: { tag: 'v2.0.0', url: 'https://github.example/acme/api/releases/tag/v2.0.0' },
    });
    expect(repo.releases).toHaveLength(1);

    repo.releases.push({ id: 1, tag: 'v1.0.0', name: null, body: 'old', draft: false, prerelease: false, target: 'main', createdAt: '2025-01-01T00:00:00Z' });
    const old = await reconcile('github_create_release', { repo: 'acme/api', tag: 'v1.0.0' }, toolContext());
    expect(old.status).toBe('unknown');
  });

  it('github_merge_pull: done when the pull is merged, not-done when it is not', async () => {
    const args = { repo: 'acme/api', number: 2 };
    expect(await reconcile('github_merge_pull', args, toolContext())).toEqual({ status: 'not-done' });
    const ctx = toolContext();
    await runWithLostAnswer('github_merge_pull', args, 'PUT', /\/pulls\/2\/merge$/, ctx);
    expect(await reconcile('github_merge_pull', args, ctx)).toMatchObject({
      status: 'done',
      output: { number: 2, merged: true, url: 'https://github.example/acme/api/pull/2' },
    });
  });
});

describe('write errors', () => {
  it('github_merge_pull explains a pull that cannot be merged (405) and a moved head (409)', async () => {
    repo.pulls.get(2)!.mergeable = false;
    const notMergeable = errorOf(await runTool(tool('github_merge_pull'), { repo: 'acme/api', number: 2 }));
    expect(notMergeable.message).toMatch(/^pull request is not mergeable .*acme\/api#2/);
    expect(notMergeable.transient).toBeFalsy();

    github.fault({ method: 'PUT', path: /\/merge$/, status: 409, body: { message: 'Head branch was modified' } });
    const moved = errorOf(await runTool(tool('github_merge_pull'), { repo: 'acme/api', number: 2 }));
    expect(moved.message).toMatch(/head changed/);
  });

  it('a 5xx on a write is uncertain (reconciled, not blindly retried); a rate limit is transient only', async () => {
    github.fault({ method: 'POST', path: /\/issues$/, status: 502, body: { message: 'Bad Gateway' } });
    const failed = errorOf(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'x' }));
    expect(failed.uncertain).toBe(true);
    expect(failed.transient).toBeFalsy();

    github.fault({ method: 'POST', path: /\/issues$/, status: 429, headers: { 'retry-after': '30' }, body: { message: 'rate limited' } });
    const limited = errorOf(await runTool(tool('github_create_issue'), { repo: 'acme/api', title: 'x' }));
    expect(limited).toMatchObject({ transient: true, code: 'rate-limited' });
    expect(limited.uncertain).toBeFalsy();
    expect(repo.issues.filter((issue) => issue.title === 'x')).toHaveLength(0);
  });
});
