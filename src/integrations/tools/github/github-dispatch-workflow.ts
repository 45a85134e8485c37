import { z } from 'zod';
import type { ToolContext, ToolResult } from '../../../agent/ports/tool.ts';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import {
  DEFAULT_POLL_TIMING,
  DISPATCH_SKEW_MS,
  findDispatchedRun,
  listDispatchedRun,
  waitForRun,
  type PollTiming,
  type WaitOutcome,
} from '../../github/workflow-poll.ts';
import { WorkflowIdSchema, type WorkflowRunLike } from '../../github/workflow-runs.ts';
import { defineTool } from '../define-tool.ts';
import { sleep } from '../ops/sleep.ts';
import { BooleanArg } from '../boolean-arg.ts';
import { numberArg } from '../number-arg.ts';

const Input = z.object({
  repo: RepoSchema,
  workflow: WorkflowIdSchema,
  ref: z.string().min(1).describe('Branch or tag to run the workflow on, e.g. "main"'),
  inputs: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .refine((inputs) => Object.keys(inputs).length <= 25, 'GitHub accepts at most 25 workflow inputs')
    .optional()
    .describe('workflow_dispatch inputs declared by the workflow'),
  wait: BooleanArg.default(true).describe('Wait for the run to finish (default true); a conclusion other than success fails the step'),
  timeoutS: numberArg({ min: 1, max: 6 * 3600 })
    .optional()
    .describe('How long to wait for the run, seconds (default: the step timeout)'),
});
type Input = z.infer<typeof Input>;

function runOutput(run: WorkflowRunLike) {
  return { runId: run.id, url: run.html_url, status: run.status, conclusion: run.conclusion };
}

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ runId: z.number(), url: z.string(), status: z.string().nullable(), conclusion: z.string().nullable() });

export function createGithubDispatchWorkflowTool(github: Octokit | undefined, pollTiming: Partial<PollTiming> = {}) {
  const timing: PollTiming = { ...DEFAULT_POLL_TIMING, ...pollTiming };
  const timeoutS = (args: Input) => args.timeoutS ?? timing.defaultTimeoutS;

  /** Waits for the run when asked; `stopped` when the step's signal ended the wait (the run goes on). */
  async function waitIfAsked(octokit: Octokit, args: Input, run: WorkflowRunLike, ctx: ToolContext): Promise<WaitOutcome | { kind: 'stopped' }> {
    ctx.progress(`workflow run ${run.id}: ${run.status ?? 'queued'}`);
    if (!args.wait || run.status === 'completed') return { kind: 'completed', run };
    try {
      return await waitForRun(octokit, { ...splitRepo(args.repo), runId: run.id }, ctx, timing, timeoutS(args) * 1000);
    } catch (error) {
      if ((error as Error).name === 'AbortError') return { kind: 'stopped' };
      throw error;
    }
  }

  async function finish(octokit: Octokit, args: Input, run: WorkflowRunLike, ctx: ToolContext): Promise<ToolResult> {
    const outcome = await waitIfAsked(octokit, args, run, ctx);
    const fail = (message: string, code: string): ToolResult => ({
      status: 'error',
      error: { message: `${message}: ${run.html_url}`, code, url: run.html_url },
    });
    // The dispatch certainly happened in each failure below, so none is uncertain: retrying would start another run.
    if (outcome.kind === 'stopped') return fail(`stopped waiting for workflow run ${run.id}`, 'cancelled');
    if (outcome.kind === 'timeout') return fail(`workflow run ${run.id} still ${outcome.run.status} after ${timeoutS(args)}s`, 'timeout');
    if (args.wait && outcome.run.conclusion !== 'success')
      return fail(`workflow run ${run.id} concluded ${outcome.run.conclusion ?? 'without a conclusion'}`, 'workflow-failed');
    return { status: 'ok', output: runOutput(outcome.run) };
  }

  return defineTool({
    name: 'github_dispatch_workflow',
    description:
      'Start a GitHub Actions workflow that has a workflow_dispatch trigger (deploys, releases, maintenance jobs) on a branch or tag, with optional inputs. By default waits for the run to complete and fails unless it concludes success. Returns runId, url, status and conclusion.',
    risk: 'write',
    output: Output,
    targets: ['repo', 'workflow', 'ref'],
    input: Input,
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo} workflow ${args.workflow}`, write: true }, async (octokit) => {
        const { owner, repo } = splitRepo(args.repo);
        const dispatchedAt = new Date();
        const response = await octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
          owner,
          repo,
          workflow_id: args.workflow,
          ref: args.ref,
          ...(args.inputs ? { inputs: args.inputs } : {}),
          return_run_details: true,
          request: requestOptions(ctx, true),
        });
        const details = (response.data ?? {}) as { workflow_run_id?: unknown };
        const target = { owner, repo, workflow: args.workflow, ref: args.ref };
        const run =
          typeof details.workflow_run_id === 'number'
            ? (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: details.workflow_run_id, request: requestOptions(ctx, false) })).data
            : await findDispatchedRun(octokit, target, new Date(dispatchedAt.getTime() - DISPATCH_SKEW_MS), ctx, timing);
        if (!run) {
          // The dispatch was accepted, so dispatching again could start a second run: a person decides.
          return {
            status: 'error',
            error: {
              message: `workflow ${args.workflow} was dispatched on ${args.ref} but its run did not appear within ${Math.round(timing.findTimeoutMs / 1000)}s`,
              code: 'run-not-found',
              uncertain: true,
            },
          };
        }
        return finish(octokit, args, run, ctx);
      }),
    reconcile: (args, ctx) =>
      reconcileGithub(github, `${args.repo} workflow ${args.workflow} runs`, async (octokit) => {
        // A run shows up seconds after its dispatch: do not call it "not done" before it could appear.
        const settleUntil = ctx.startedAt.getTime() + Math.min(timing.findTimeoutMs, 15_000);
        if (Date.now() < settleUntil) await sleep(settleUntil - Date.now(), ctx.signal);
        const { owner, repo } = splitRepo(args.repo);
        const since = new Date(ctx.startedAt.getTime() - DISPATCH_SKEW_MS);
        const run = await listDispatchedRun(octokit, { owner, repo, workflow: args.workflow, ref: args.ref }, since, ctx);
        if (!run) return { status: 'not-done' };
        // The dispatch happened. A finished run is the answer, a failed one included (check() judges it);
        // one still running when reconcile must stop is left to a person.
        const outcome = await waitIfAsked(octokit, args, run, ctx);
        if (outcome.kind === 'completed') return { status: 'done', output: runOutput(outcome.run) };
        return { status: 'unknown', reason: `workflow run ${run.id} was started by this step and is still running: ${run.html_url}` };
      }),
    check: (output, args) =>
      args.wait === false || output['conclusion'] === 'success'
        ? { ok: true }
        : { ok: false, reason: `workflow run concluded ${String(output['conclusion'] ?? output['status'])}: ${String(output['url'])}` },
  });
}
