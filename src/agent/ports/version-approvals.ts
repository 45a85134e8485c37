/**
 * The executor's precondition as a port: may this plan version run, and may a rollback step of it start. The
 * wiring answers it with the policy in force (decisions/version-approval.ts), so execution asks no decision code
 * and acts on the answer itself (a refusal becomes its escalation).
 */
import type { Refused } from '../model/refusal.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord } from './run-store.ts';

/** Why a version may not run: nothing approved it, no approval covers its risk, or its content changed after approval. */
export type VersionRefusalCode = 'no-approval' | 'none-covers' | 'content-changed';

export interface VersionApprovals {
  /**
   * Whether the stored approvals, judged by the policy in force, let `version` run as its content is now.
   * `approvals`: the run's approvals, when the caller just read them.
   */
  mayRun(run: RunRecord, version: PlanVersionRecord, approvals?: readonly ApprovalRecord[]): Promise<Refused<void, VersionRefusalCode>>;
  /** Why a rollback step of `version` must not start (its content changed after approval), or undefined. */
  rollbackContentChanged(run: RunRecord, version: PlanVersionRecord): Promise<string | undefined>;
}
