/**
 * With no TANDEM_POLICY, today's settings as a Cedar policy with exactly today's behaviour (decision 028;
 * test/policy/builtin-equivalence.test.ts holds the two equal over generated cases):
 * - approvers (users and user groups; empty: anyone) approve and confirm steps, answer escalations,
 *   save runbooks and create schedules;
 * - a destructive step needs an approver other than the requester (four-eyes);
 * - the requester, or an approver, may answer, cancel, abort (outside an escalation) and change the plan;
 * - a schedule's maker, or an approver, may remove it;
 * - read-only steps auto-run where that setting is on;
 * - with an allow-list of repositories, no step on another repository is approved, confirmed or auto-run.
 */
import type { PolicySource } from '../agent/ports/policy.ts';

export interface BuiltinSettings {
  approvers: readonly string[];
  autoRunReadOnly: boolean;
  /** Lower-case `owner/name` and `owner/*`; undefined: any repository. */
  repos: readonly string[] | undefined;
}

export const BUILTIN_POLICY_FILE = 'built-in.cedar';

const quoted = (value: string) => JSON.stringify(value);

function approverCondition(approvers: readonly string[]): string {
  if (approvers.length === 0) return 'true';
  return approvers.map((id) => (id.startsWith('S') ? `principal in Group::${quoted(id)}` : `principal == User::${quoted(id)}`)).join(' || ');
}

export function builtinPolicy(settings: BuiltinSettings): PolicySource {
  const approver = approverCondition(settings.approvers);
  const who = settings.approvers.length === 0 ? 'anyone' : 'an approver';
  const rules = [
    `@id("anyone-requests")\npermit(principal, action == Action::"request", resource);`,
    `@id("approvers-approve") @who(${quoted(who)})\npermit(principal, action in [Action::"approve", Action::"confirm"], resource is Step)\nwhen { ${approver} };`,
    `@id("four-eyes") @who("an approver other than the person who asked") @reason("This step is destructive")\nforbid(principal, action in [Action::"approve", Action::"confirm"], resource is Step)\nwhen { resource.risk == "destructive" && principal == context.requester };`,
    `@id("requester-steers") @who("the person who asked")\npermit(principal, action in [Action::"answer", Action::"cancel", Action::"abort", Action::"replan"], resource is Run)\nwhen { principal == context.requester && !context.escalated };`,
    `@id("approvers-steer") @who(${quoted(who)})\npermit(principal, action in [Action::"answer", Action::"cancel", Action::"abort", Action::"replan", Action::"retry", Action::"skip", Action::"save_runbook"], resource is Run)\nwhen { ${approver} };`,
    `@id("approvers-schedule") @who(${quoted(who)})\npermit(principal, action == Action::"schedule", resource is Schedule)\nwhen { ${approver} };`,
    `@id("maker-removes-schedule") @who("the person who made it")\npermit(principal, action == Action::"cancel", resource is Schedule)\nwhen { principal == resource.createdBy };`,
    `@id("approvers-remove-schedules") @who(${quoted(who)})\npermit(principal, action == Action::"cancel", resource is Schedule)\nwhen { ${approver} };`,
  ];
  if (settings.autoRunReadOnly)
    rules.push(`@id("auto-run-read-only")\npermit(principal, action == Action::"auto_run", resource is Step)\nwhen { resource.risk == "read" };`);
  if (settings.repos !== undefined) {
    const allowed = settings.repos.map((entry) =>
      entry.endsWith('/*') ? `resource.repository like ${quoted(entry)}` : `resource.repository == ${quoted(entry)}`,
    );
    rules.push(
      `@id("repositories") @reason("That repository is not on the allow-list")\nforbid(principal, action in [Action::"approve", Action::"confirm", Action::"auto_run"], resource is Step)\nwhen { resource.repository != "" && !(${allowed.join(' || ') || 'false'}) };`,
    );
  }
  return { file: BUILTIN_POLICY_FILE, text: `${rules.join('\n\n')}\n` };
}
