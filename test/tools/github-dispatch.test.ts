import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool, ToolContext } from '../../src/agent/ports/tool.ts';
import { createGithubDispatchWorkflowTool } from '../../src/integrations/tools/github/github-dispatch-workflow.ts';
import { startFakeGithub, type FakeGithub, type FakeRepo } from '../fakes/github-server.ts';
import { errorOf, okOutput, runTool, testGithub, toolContext } from './tool-context.ts';

let github: FakeGithub;
let repo: FakeRepo;
let dispatch: AnyTool;

beforeEach(async () => {
  github = await startFakeGithub();
  repo = github.addRepo('acme/api');
  dispatch = createGithubDispatchWorkflowTool(testGithub(github.url), { initialMs: 5, maxMs: 20, findTimeoutMs: 2_000 });
});
afterEach(() => github.close());

const args = { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main', inputs: { environment: 'staging' } };

function reconcile(ctx: ToolContext, input: unknown = args) {
  return dispatch.reconcile!(dispatch.input.parse(input), ctx);
}

describe('github_dispatch_workflow', () => {
  it('on a 204 finds the run it started and waits for it to succeed, reporting progress', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', listLag: 2, pollsPerPhase: 2 });
    const ctx = toolContext();
    const output = okOutput(await runTool(dispatch, args, ctx));
    const run = repo.runs[0]!;
    expect(output).toEqual({ runId: run.id, url: `https://github.example/acme/api/actions/runs/${run.id}`, status: 'completed', conclusion: 'success' });
    expect(run.inputs).toEqual({ environment: 'staging' });
    expect(ctx.notes).toEqual(
      expect.arrayContaining([`workflow run ${run.id}: queued`, `workflow run ${run.id}: in_progress`, `workflow run ${run.id}: completed`]),
    );
    const sent = github.requests.find((r) => r.path.endsWith('/dispatches'))!;
    expect(sent.body).toMatchObject({ ref: 'main', return_run_details: true });
  });

  it('uses the run id GitHub returns with run details (200) without searching the run list', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', returnRunDetails: true });
    const output = okOutput(await runTool(dispatch, { ...args, wait: false }));
    expect(output['runId']).toBe(repo.runs[0]!.id);
    expect(github.requests.some((r) => r.path.endsWith('/deploy.yml/runs'))).toBe(false);
  });

  it('fails the step with the run url when the workflow concludes failure', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', conclusion: 'failure' });
    const error = errorOf(await runTool(dispatch, args));
    const url = `https://github.example/acme/api/actions/runs/${repo.runs[0]!.id}`;
    expect(error).toMatchObject({ code: 'workflow-failed', url });
    expect(error.message).toContain(url);
    expect(error.message).toContain('failure');
  });

  it('with wait false returns as soon as the run exists', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', pollsPerPhase: 1000 });
    const output = okOutput(await runTool(dispatch, { ...args, wait: false }));
    expect(output).toMatchObject({ status: 'queued', conclusion: null });
  });

  it('gives up after timeoutS with the run url, and stops when the step is cancelled', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', pollsPerPhase: 100_000 });
    const timedOut = errorOf(await runTool(dispatch, { ...args, timeoutS: 1 }));
    expect(timedOut).toMatchObject({ code: 'timeout', url: expect.stringContaining('/actions/runs/') });

    const controller = new AbortController();
    const ctx = toolContext({ signal: controller.signal, progress: () => controller.abort() });
    const cancelled = errorOf(await runTool(dispatch, args, ctx));
    expect(cancelled).toMatchObject({ code: 'cancelled', url: expect.stringContaining('/actions/runs/') });
    expect(cancelled.uncertain).toBeFalsy();
  });

  it('an unknown workflow is a clear not-found error', async () => {
    const error = errorOf(await runTool(dispatch, { ...args, workflow: 'nope.yml' }));
    expect(error.message).toBe('not found: acme/api workflow nope.yml');
  });

  it('reconcile finds a dispatch whose answer was lost and waits for its result; no second run starts', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml' });
    github.fault({ method: 'POST', path: /\/dispatches$/, drop: true, afterEffect: true });
    const ctx = toolContext({ startedAt: new Date(Date.now() - 20_000) });
    expect(errorOf(await runTool(dispatch, args, ctx)).uncertain).toBe(true);
    const result = await reconcile(ctx);
    expect(result).toEqual({ status: 'done', output: expect.objectContaining({ runId: repo.runs[0]!.id, conclusion: 'success' }) });
    expect(repo.runs).toHaveLength(1);
  });

  it('reconcile leaves a run still going when it must stop to a person, with the run url', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', pollsPerPhase: 100_000 });
    github.fault({ method: 'POST', path: /\/dispatches$/, drop: true, afterEffect: true });
    const startedAt = new Date(Date.now() - 20_000);
    const ctx = toolContext({ startedAt });
    await runTool(dispatch, args, ctx);
    const result = await reconcile({ ...ctx, signal: AbortSignal.timeout(300) });
    expect(result).toEqual({ status: 'unknown', reason: expect.stringContaining(`/actions/runs/${repo.runs[0]!.id}`) });
  });

  it('reconcile reports not-done when nothing was dispatched, and a failed run fails check()', async () => {
    github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml', conclusion: 'failure' });
    expect(await reconcile(toolContext({ startedAt: new Date(Date.now() - 20_000) }))).toEqual({ status: 'not-done' });

    const ctx = toolContext({ startedAt: new Date(Date.now() - 20_000) });
    github.fault({ method: 'POST', path: /\/dispatches$/, drop: true, afterEffect: true });
    await runTool(dispatch, args, ctx);
    const result = await reconcile(ctx);
    if (result.status !== 'done') throw new Error(JSON.stringify(result));
    expect(result.output['conclusion']).toBe('failure');
    expect(dispatch.check!(result.output, dispatch.input.parse(args))).toMatchObject({ ok: false, reason: expect.stringContaining('/actions/runs/') });
  });
});
