import type { Octokit } from './client.ts';
import type { RequestOptions } from './call.ts';

const FAILED_CONCLUSIONS = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);

export interface CheckSummary {
  /** success: every check passed; failure: one failed; pending: some still running; none: no checks at all. */
  state: 'success' | 'failure' | 'pending' | 'none';
  total: number;
  failed: string[];
  pending: string[];
  /** Sources GitHub would not show (403/404: a token without the checks permission, a server without the API). */
  unreadable?: string[];
}

/** A source the token may not read, or a server that lacks it, gives no checks instead of failing the whole read. */
async function readable<T>(source: string, read: Promise<T>, unreadable: string[]): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status !== 403 && status !== 404) throw error;
    unreadable.push(source);
    return undefined;
  }
}

/** Check runs (Actions, apps) and commit statuses (older CI) both gate a merge; combine them into one verdict. */
export async function summarizeChecks(octokit: Octokit, owner: string, repo: string, sha: string, request: RequestOptions): Promise<CheckSummary> {
  const unreadable: string[] = [];
  const [checkRuns, combined] = await Promise.all([
    readable('check runs', octokit.rest.checks.listForRef({ owner, repo, ref: sha, per_page: 100, request }), unreadable),
    readable('commit statuses', octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100, request }), unreadable),
  ]);
  const runs = checkRuns?.data.check_runs ?? [];
  const statuses = combined?.data.statuses ?? [];
  const failed: string[] = [];
  const pending: string[] = [];
  for (const run of runs) {
    if (run.status !== 'completed') pending.push(run.name);
    else if (run.conclusion && FAILED_CONCLUSIONS.has(run.conclusion)) failed.push(run.name);
  }
  for (const status of statuses) {
    if (status.state === 'pending') pending.push(status.context);
    else if (status.state === 'failure' || status.state === 'error') failed.push(status.context);
  }
  const total = runs.length + statuses.length;
  const state = total === 0 ? 'none' : failed.length > 0 ? 'failure' : pending.length > 0 ? 'pending' : 'success';
  return { state, total, failed: failed.slice(0, 20), pending: pending.slice(0, 20), ...(unreadable.length ? { unreadable } : {}) };
}
