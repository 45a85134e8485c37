/**
 * The attribution a write step carries (TANDEM_ATTRIBUTION): who asked, who approved this step's plan
 * version, the version's digest and a link to the thread. Read from the store when the step is about
 * to call its tool, so it names the approvals that let it run.
 */
import type { AgentContext } from '../../context.ts';
import { planDigest } from '../../model/plan/plan-digest.ts';
import type { RunRecord } from '../../ports/run-store.ts';
import type { Attribution, Risk } from '../../ports/tool.ts';

export async function attributionFor(
  ctx: Pick<AgentContext, 'config' | 'store' | 'thread'>,
  run: RunRecord,
  planVersion: number,
  risk: Risk,
): Promise<Attribution | undefined> {
  if (ctx.config.settings.attribution === false || risk === 'read') return undefined;
  const [approvals, version, threadUrl] = await Promise.all([
    ctx.store.listApprovals(run.id),
    ctx.store.getPlanVersion(run.id, planVersion),
    ctx.thread.surface.threadLink ? ctx.thread.surface.threadLink(run) : Promise.resolve(undefined),
  ]);
  if (!version) return undefined;
  const approvers = [...new Set(approvals.filter((a) => a.planVersion === planVersion && a.decision === 'approved').map((a) => a.userId))];
  return {
    requester: run.requester,
    approvers,
    planVersion,
    digest: await planDigest(version.plan),
    threadUrl: threadUrl ?? null,
    conversation: run.conversation,
  };
}
