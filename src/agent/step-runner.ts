/**
 * Runs one step end to end, storing each transition before what depends on it: references filled
 * and args checked, the step claimed (before the tool is called), the tool called, the output
 * redacted, limited and evaluated, and the result recorded (before any dependant starts).
 */
import { deliverOwed, owedQuestion } from './outbox.ts';
import type { AgentContext } from './context.ts';
import { evaluateStep } from './evaluator.ts';
import type { EventLog } from './event-log.ts';
import { limitOutput } from './output-limit.ts';
import type { RunRecord, StepErrorRecord, StepKind, StepRecord } from './ports/run-store.ts';
import { redactValue } from './redact.ts';
import { createInnerTools } from './inner-calls.ts';
import { fillReferences } from './references.ts';
import { REPO_NOT_ALLOWED, repositoryRefusal } from './repository-allow-list.ts';
import { stepTimeoutMs } from './stop-conditions.ts';
import { confirmationGate } from './target-confirmation.ts';
import { callTool } from './tool-call.ts';

export interface StepSpec {
  planVersion: number;
  stepId: string;
  kind: StepKind;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  expect?: string | undefined;
}

export type StepOutcome =
  | { status: 'succeeded'; output: Record<string, unknown>; note: string | null }
  | { status: 'failed' | 'uncertain'; error: StepErrorRecord }
  | { status: 'waiting' | 'cancelled' }
  /** Another claimant owns the step, or someone moved it while it ran. */
  | { status: 'lost' };

export interface RunStepOptions {
  runSignal: AbortSignal;
  events: EventLog;
  outputs: ReadonlyMap<string, Record<string, unknown>>;
  onClaimed?(record: StepRecord): void;
  onProgress?(note: string): void;
}

export async function runStep(ctx: AgentContext, run: RunRecord, spec: StepSpec, options: RunStepOptions): Promise<StepOutcome> {
  const key = { runId: run.id, planVersion: spec.planVersion, stepId: spec.stepId };
  const failBeforeStart = async (message: string, code = 'invalid-args'): Promise<StepOutcome> => {
    const error = { message: redactValue(message, ctx.settings.secrets), code };
    if (!(await ctx.store.setStepStatus({ ...key, from: ['pending'], to: 'failed', error }))) return { status: 'lost' };
    options.events.append('step-failed', { ...key, kind: spec.kind, error });
    return { status: 'failed', error };
  };

  const tool = ctx.tools.get(spec.tool);
  if (!tool) return failBeforeStart(`unknown tool ${spec.tool}`);
  const filled = fillReferences(spec.args, options.outputs, tool.quoteFilled?.bind(tool));
  if (!filled.ok) return failBeforeStart(`${spec.stepId}.args.${filled.error}`);
  const parsed = tool.input.safeParse(filled.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failBeforeStart(`${spec.stepId}.args.${issue?.path.join('.') ?? ''}: ${issue?.message} (after filling references)`);
  }
  // Judged again once references are filled: a repository filled in at run time was not there to judge at approval, and the list may have changed since.
  const refusal = repositoryRefusal(ctx.settings.repositories, tool, parsed.data as Record<string, unknown>);
  if (refusal) return failBeforeStart(`${spec.stepId}.args.${refusal.at}: ${refusal.reason} (checked before the step ran; it was not run)`, REPO_NOT_ALLOWED);
  // Only then may a person be asked to confirm a target filled in from words.
  const gate = await confirmationGate(ctx, run, spec, tool, parsed.data as Record<string, unknown>);
  if (gate !== 'go') return { status: gate };

  const timeoutMs = stepTimeoutMs(ctx.settings.budgets);
  // Alone on the store the lease only names us; with peers the heartbeat renews it while the tool runs,
  // so it can be short and a dead replica's step is found quickly.
  const leaseMs = ctx.soleOwner ? timeoutMs + 60_000 : ctx.leases.settings.leaseMs;
  // The args as the tool gets them (after its schema: a number stays a number, defaults filled), the
  // values a Confirm and the audit compare.
  const claimed = await ctx.store.claimStep({
    ...key,
    owner: ctx.owner,
    leaseMs,
    executedArgs: redactValue(parsed.data as Record<string, unknown>, ctx.settings.secrets),
  });
  if (!claimed) return { status: 'lost' };
  options.onClaimed?.(claimed);
  options.events.append('step-started', { ...key, kind: spec.kind, attempt: claimed.attempt, tool: spec.tool });

  const retry = ctx.settings.retry ?? { retries: 3, baseDelayMs: 500 };
  const toolContext = {
    ...key,
    attempt: claimed.attempt,
    marker: `tandem:${run.id}/${spec.stepId}`,
    startedAt: claimed.startedAt ?? ctx.now(),
    progress: (note: string) => options.onProgress?.(redactValue(note, ctx.settings.secrets).slice(0, 200)),
    log: {
      info: (obj: object, msg?: string) => ctx.logger.info({ ...obj, ...key }, msg),
      warn: (obj: object, msg?: string) => ctx.logger.warn({ ...obj, ...key }, msg),
    },
  };
  const innerTools = createInnerTools(ctx, { ...key, attempt: claimed.attempt, signal: options.runSignal, events: options.events, toolContext });
  const result = await callTool(
    tool,
    parsed.data,
    { ...toolContext, innerTools },
    {
      timeoutMs,
      runSignal: options.runSignal,
      retries: retry.retries,
      baseDelayMs: retry.baseDelayMs,
      onRetry: (error, attempt, delayMs) =>
        options.events.append('step-retried', { ...key, retry: attempt, delayMs, error: redactValue(error, ctx.settings.secrets) }),
    },
  );
  const finish = async (
    status: 'succeeded' | 'failed' | 'uncertain' | 'cancelled' | 'waiting',
    extra: { output?: Record<string, unknown> | null; error?: StepErrorRecord | null },
  ) => {
    const stored = await ctx.store.finishStep({ ...key, attempt: claimed.attempt, status, ...extra });
    if (stored) options.events.append(`step-${status}`, { ...key, kind: spec.kind, attempt: claimed.attempt, error: extra.error ?? undefined });
    return stored;
  };

  if (result.status === 'ok') {
    const output = limitOutput(result.output, ctx.settings.secrets);
    const verdict =
      spec.kind === 'forward'
        ? await evaluateStep(
            { llm: ctx.llm, secrets: ctx.settings.secrets, onUsage: ctx.usage(run.id, 'evaluator') },
            {
              tool,
              args: parsed.data as Record<string, unknown>,
              output: result.output,
              storedOutput: output,
              step: { id: spec.stepId, title: spec.title, expect: spec.expect },
              runId: run.id,
            },
          )
        : { verdict: 'pass' as const, reason: '', by: 'none' as const };
    if (verdict.by !== 'none') options.events.append('step-evaluated', { ...key, verdict: verdict.verdict, reason: verdict.reason, by: verdict.by });
    if (verdict.verdict === 'fail') {
      const error = { message: `evaluation failed: ${verdict.reason}`, code: 'evaluation-failed' };
      return (await finish('failed', { output, error })) ? { status: 'failed', error } : { status: 'lost' };
    }
    const note = verdict.verdict === 'uncertain' ? `unchecked: ${verdict.reason}` : null;
    return (await finish('succeeded', { output })) ? { status: 'succeeded', output, note } : { status: 'lost' };
  }
  if (result.status === 'pause') {
    const question = redactValue(result.question, ctx.settings.secrets);
    await ctx.store.openQuestion({ runId: run.id, stepId: spec.stepId, planVersion: spec.planVersion, question }, owedQuestion(ctx, spec.stepId, question));
    if (!(await finish('waiting', {}))) return { status: 'lost' };
    await deliverOwed(ctx, run.id);
    return { status: 'waiting' };
  }
  const error: StepErrorRecord = redactValue({ ...result.error }, ctx.settings.secrets);
  if (error.uncertain) return (await finish('uncertain', { error })) ? { status: 'uncertain', error } : { status: 'lost' };
  if (result.status === 'cancelled') return (await finish('cancelled', { error })) ? { status: 'cancelled' } : { status: 'lost' };
  return (await finish('failed', { error })) ? { status: 'failed', error } : { status: 'lost' };
}
