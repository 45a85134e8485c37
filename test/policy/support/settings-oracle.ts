/**
 * How the settings decided before the built-in policy (decision 028): TANDEM_APPROVERS (users and groups; empty:
 * anyone), four-eyes for destructive steps, read-only auto-run. The product no longer asks these rules; the
 * property test holds the built-in policy equal to them.
 */
import type { Risk } from '../../../src/agent/ports/tool.ts';

export type RequesterAction = 'reject' | 'edit' | 'revise' | 'answer' | 'cancel' | 'abort';

export interface SettingsOracle {
  isApprover(userId: string): boolean;
  autoRunReadOnly: boolean;
}

/** Approving a step, or confirming its filled-in target: an approver, and for destructive work not the requester. */
export const mayApproveOrConfirm = (s: SettingsOracle, risk: Risk, userId: string, requester: string) =>
  s.isApprover(userId) && !(risk === 'destructive' && userId === requester);

export const mayAutoRun = (s: SettingsOracle, risk: Risk) => risk === 'read' && s.autoRunReadOnly;

/** Stopping or steering a run: the requester, or an approver. */
export const mayStopOrSteer = (s: SettingsOracle, userId: string, requester: string) => userId === requester || s.isApprover(userId);

/** Answering an escalation, saving a runbook, creating a schedule: an approver. */
export const mayResolveSaveOrSchedule = (s: SettingsOracle, userId: string) => s.isApprover(userId);

/** Removing a schedule: its maker, or an approver. */
export const mayRemoveSchedule = (s: SettingsOracle, userId: string, createdBy: string) => userId === createdBy || s.isApprover(userId);
