import type { ToolContext } from '../../agent/ports/tool.ts';
import { sleep } from '../tools/ops/sleep.ts';
import { requestOptions } from './call.ts';
import type { Octokit } from './client.ts';
import { toToolError } from './errors.ts';
import { pickDispatchedRun, type WorkflowRunLike } from './workflow-runs.ts';

/** Polling pace for workflow runs; tests make it fast. */
export interface PollTiming {
  initialMs: number;
  maxMs: number;
  /** How long to look for the run a 204 dispatch created before giving up. */
  findTimeoutMs: number;
  /** How long a dispatch waits for its run when the plan gives no timeoutS; wire it to the step timeout. */
  defaultTimeoutS: number;
}

export const DEFAULT_POLL_TIMING: PollTiming = { initialMs: 2_000, maxMs: 30_000, findTimeoutMs: 60_000, defaultTimeoutS: 600 };

/** A run appears in the list a few seconds after its dispatch; our clock and GitHub's also differ a little. */
export const DISPATCH_SKEW_MS = 10_000;

interface Target {
  owner: string;
  repo: string;
  workflow: string | number;
  ref: string;
}

export async function listDispatchedRun(octokit: Octokit, target: Target, since: Date, ctx: Pick<ToolContext, 'signal'>): Promise<WorkflowRunLike | undefined> {
  const { data } = await octokit.rest.actions.listWorkflowRuns({
    owner: target.owner,
    repo: target.repo,
    workflow_id: target.workflow,
    event: 'workflow_dispatch',
    per_page: 30,
    request: requestOptions(ctx, false),
  });
  return pickDispatchedRun(data.workflow_runs, target.ref, since);
}

/** After a 204 dispatch: look for the run until it shows up or `findTimeoutMs` passes. */
export async function findDispatchedRun(
  octokit: Octokit,
  target: Target,
  since: Date,
  ctx: Pick<ToolContext, 'signal'>,
  timing: PollTiming,
): Promise<WorkflowRunLike | undefined> {
  const deadline = Date.now() + timing.findTimeoutMs;
  let delay = Math.min(timing.initialMs, 1_000);
  for (;;) {
    const run = await listDispatchedRun(octokit, target, since, ctx);
    if (run || Date.now() >= deadline) return run;
    await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), ctx.signal);
    delay = Math.min(delay * 2, timing.maxMs);
  }
}

export type WaitOutcome = { kind: 'completed'; run: WorkflowRunLike } | { kind: 'timeout'; run: WorkflowRunLike };

/**
 * Polls a run with backoff until it completes or `timeoutMs` passes. Transient failures (5xx, rate
 * limits, a dropped connection) while polling are waited out; anything else is thrown.
 */
export async function waitForRun(
  octokit: Octokit,
  target: { owner: string; repo: string; runId: number },
  ctx: Pick<ToolContext, 'signal' | 'progress'>,
  timing: PollTiming,
  timeoutMs: number,
): Promise<WaitOutcome> {
  const deadline = Date.now() + timeoutMs;
  let delay = timing.initialMs;
  let lastStatus: string | null = null;
  let last: WorkflowRunLike | undefined;
  for (;;) {
    try {
      const { data } = await octokit.rest.actions.getWorkflowRun({
        owner: target.owner,
        repo: target.repo,
        run_id: target.runId,
        request: requestOptions(ctx, false),
      });
      last = data;
      if (data.status !== lastStatus) {
        lastStatus = data.status;
        ctx.progress(`workflow run ${data.id}: ${data.status ?? 'unknown'}`);
      }
      if (data.status === 'completed') return { kind: 'completed', run: data };
    } catch (error) {
      if ((error as { name?: string }).name === 'AbortError' || !toToolError(error, { what: '', write: false }).transient) throw error;
    }
    const left = deadline - Date.now();
    if (left <= 0 && last) return { kind: 'timeout', run: last };
    if (left <= 0) throw new Error(`workflow run ${target.runId} could not be read before the timeout`);
    await sleep(Math.min(delay, left), ctx.signal);
    delay = Math.min(Math.round(delay * 1.5), timing.maxMs);
  }
}
