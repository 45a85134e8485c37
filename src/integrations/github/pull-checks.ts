import type { Octokit } from './client.ts';
import type { RequestOptions } from './call.ts';

const FAILED_CONCLUSIONS = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);

export interface CheckSummary {
  /** success: every check passed; failure: one failed; pending: some still running; none: no checks at all. */
  state: 'success' | 'failure' | 'pending' | 'none';
  total: number;
  failed: string[];
  pending: string[];
}

/** Check runs (Actions, apps) and commit statuses (older CI) both gate a merge; combine them into one verdict. */
export async function summarizeChecks(octokit: Octokit, owner: string, repo: string, sha: string, request: RequestOptions): Promise<CheckSummary> {
  const [checkRuns, combined] = await Promise.all([
    octokit.rest.checks.listForRef({ owner, repo, ref: sha, per_page: 100, request }),
    octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100, request }),
  ]);
  const failed: string[] = [];
  const pending: string[] = [];
  for (const run of checkRuns.data.check_runs) {
    if (run.status !== 'completed') pending.push(run.name);
    else if (run.conclusion && FAILED_CONCLUSIONS.has(run.conclusion)) failed.push(run.name);
  }
  for (const status of combined.data.statuses) {
    if (status.state === 'pending') pending.push(status.context);
    else if (status.state === 'failure' || status.state === 'error') failed.push(status.context);
  }
  const total = checkRuns.data.check_runs.length + combined.data.statuses.length;
  const state = total === 0 ? 'none' : failed.length > 0 ? 'failure' : pending.length > 0 ? 'pending' : 'success';
  return { state, total, failed: failed.slice(0, 20), pending: pending.slice(0, 20) };
}
