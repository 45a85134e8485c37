/**
 * Confirm for late-bound targets. When what a write or destructive step acts on (a target arg) is
 * filled at run time from a person's answer or a model's text, the plan's approver never saw the
 * value: the step does not start until an approver confirms exactly the filled-in values (another
 * than the requester for a destructive step). The request and the decision live in the store, so a
 * restart keeps the step waiting and a Confirm after it still counts. The decision is in
 * target-decision.ts.
 */
import { canonicalJson } from '../../text/canonical-json.ts';
import type { AgentContext } from '../../context.ts';
import { OWED_LEASE_MS, owedConfirmation } from '../../delivery/owed-delivery.ts';
import type { RunRecord, StepKind } from '../../ports/run-store.ts';
import type { AnyTool } from '../../ports/tool.ts';
import { redactValue } from '../../text/redact.ts';
import { lateBoundTargetNames, targetArgs, wordSteps } from '../../model/step-targets.ts';

type GateOutcome = 'go' | 'waiting' | 'lost';

interface GatedStep {
  planVersion: number;
  stepId: string;
  kind: StepKind;
  /** The args as planned, references unfilled: where each value comes from. */
  args: Record<string, unknown>;
}

/**
 * Called once per step start (forward or rollback), after references are filled and checked, before the step is claimed.
 * 'go': nothing to confirm, or an approver confirmed these exact values. 'waiting': the step now
 * waits for a Confirm (stored, and asked in the thread). 'lost': someone else moved the step.
 */
export async function confirmationGate(
  ctx: AgentContext,
  run: RunRecord,
  step: GatedStep,
  tool: AnyTool,
  filledArgs: Record<string, unknown>,
): Promise<GateOutcome> {
  // Rollback steps too: an Abort that undoes with a target a person or a model named is still that write.
  if (tool.risk === 'read') return 'go';
  const recorded = await ctx.store.listSteps(run.id);
  const words = wordSteps(
    recorded.map((s) => ({ stepId: s.stepId, tool: s.tool, args: s.plannedArgs })),
    (name) => ctx.config.tools.get(name),
  );
  const lateBound = lateBoundTargetNames(tool, step.args, words);
  if (lateBound.length === 0) return 'go';
  // Compared as stored: the store keeps values redacted.
  const targets = redactValue(Object.fromEntries(targetArgs(tool, filledArgs)), ctx.config.settings.secrets);
  const earlier = (await ctx.store.listConfirmations(run.id)).find((c) => c.planVersion === step.planVersion && c.stepId === step.stepId);
  if (earlier?.status === 'confirmed' && canonicalJson(earlier.targets) === canonicalJson(targets)) return 'go';
  if (earlier?.status === 'aborted') return 'lost';
  const owed = owedConfirmation(run.id, step.planVersion, step.stepId);
  // A later request of the same step for other values is another message.
  const owe = { ...owed, id: `${owed.id}/${fingerprint(canonicalJson(targets))}` };
  const request = await ctx.store.requestConfirmation({
    runId: run.id,
    planVersion: step.planVersion,
    stepId: step.stepId,
    tool: tool.name,
    risk: tool.risk,
    targets,
    lateBound,
    owe,
    owner: ctx.replica.owner,
    leaseMs: OWED_LEASE_MS,
  });
  if (!request) return 'lost';
  await ctx.store.appendEvent(run.id, 'confirmation-requested', { planVersion: step.planVersion, stepId: step.stepId, targets, lateBound });
  // Stored with the request: delivered now, or by whichever replica sweeps the outbox if this one dies first.
  await ctx.thread.owed.deliver(run.id);
  return 'waiting';
}

/** A short name for a set of values (FNV-1a): tells one request of a step from a later one for other values. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}
