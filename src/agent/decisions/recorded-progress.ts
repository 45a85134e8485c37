/**
 * Under a policy file, a click that counted but did not yet approve the version: the thread says who approved and
 * what is still needed, and the plan message shows each step's progress from the approvals recorded so far ("s2
 * needs two members of @owners (1 of 2 approvals)"). Each approver counts in the groups recorded with their click,
 * as the audit counts them.
 */
import type { AgentContext } from '../context.ts';
import { person, words } from '../text/text.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { PolicyEngine } from '../ports/policy.ts';
import type { ApprovalRecord, RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { isAutoApproval } from './approval-need.ts';
import { policySteps, progressLines, versionProgress, type PolicyGate } from './policy-approval.ts';
import { versionSituation } from './version-permission.ts';

function recordedProgressLines(input: {
  engine: PolicyEngine;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
  approvals: readonly ApprovalRecord[];
}): string[] {
  const situation = versionSituation(input.run, input.version, input.digest);
  const people = input.approvals
    .filter(
      (a) => a.planVersion === input.version.version && a.decision === 'approved' && !isAutoApproval(a) && (a.digest === null || a.digest === input.digest),
    )
    .map((a) => ({ userId: a.userId, groups: a.policyGroups ?? [] }));
  return progressLines(
    input.version.plan,
    versionProgress(input.engine, policySteps(input.version.plan, input.riskOf, situation.channel), situation, people).steps,
  );
}

/** Tells the thread and redraws the plan message; `stillNeeded` is the refusal's list of steps not yet approved. */
export async function showPartialApproval(
  ctx: Pick<AgentContext, 'thread' | 'config'>,
  gate: PolicyGate,
  input: { run: RunRecord; planVersion: number; version: { version: number; plan: Plan }; digest: string; userId: string },
  approvals: readonly ApprovalRecord[],
  stillNeeded: string,
): Promise<void> {
  await ctx.thread.surface.notify(input.run, words`Approved by ${person(input.userId)}; still needed: ${stillNeeded}.`);
  const lines = recordedProgressLines({ ...input, engine: gate.current(), riskOf: ctx.config.tools.riskOf, approvals });
  await ctx.thread.surface.approvalProgress?.(input.run, input.planVersion, lines);
}
