/**
 * Runs one step end to end, storing each transition before what depends on it: references filled
 * and args checked, the step claimed (before the tool is called), the tool called, the output
 * redacted, limited and evaluated, and the result recorded (before any dependant starts).
 */
import { attributionFor } from './attribution.ts';
import { owedQuestion } from '../../delivery/owed-delivery.ts';
import type { AgentContext } from '../../context.ts';
import { evaluateStep } from './evaluator.ts';
import type { EventLog } from '../../delivery/event-log.ts';
import type { StepWrites } from '../joined-claims.ts';
import { limitOutput } from '../../text/output-limit.ts';
import type { RunRecord, StepErrorRecord, StepKind, StepRecord } from '../../ports/run-store.ts';
import type { AnyTool, Attribution } from '../../ports/tool.ts';
import { redactValue } from '../../text/redact.ts';
import { createInnerTools } from './inner-calls.ts';
import { fillAsData, fillReferences } from '../../model/references.ts';
import { REPO_NOT_ALLOWED, repositoryRefusal } from '../../model/repository-allow-list.ts';
import { stepTimeoutMs } from '../../model/budgets.ts';
import { confirmationGate } from './target-confirmation.ts';
import { callTool, type CallOutcome } from './tool-call.ts';
import { plainText } from '../../text/text.ts';
import { runEvent } from '../../model/run-events.ts';
import { UNCHECKED } from '../../model/step-codes.ts';
import { earlierChange } from '../../model/step-change.ts';

export interface StepSpec {
  planVersion: number;
  stepId: string;
  kind: StepKind;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  expect?: string | undefined;
  /** Another step of its version depends on it (an unchecked read is escalated only then). */
  hasDependents?: boolean;
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
  /** Where the claim and the finish are written; the store unless the executor joins them (joined-claims.ts). */
  writes?: StepWrites;
}

export async function runStep(ctx: AgentContext, run: RunRecord, spec: StepSpec, options: RunStepOptions): Promise<StepOutcome> {
  const key = { runId: run.id, planVersion: spec.planVersion, stepId: spec.stepId };
  const step: StepInRun = { key, spec, events: options.events, writes: options.writes ?? ctx.store };
  const ready = checkArgs(ctx, spec, options.outputs);
  if (!ready.ok) return failBeforeStart(ctx, step, ready.message, ready.code);
  // Only once the args pass may a person be asked to confirm a target filled in from words.
  const gate = await confirmationGate(ctx, run, spec, ready.tool, ready.args);
  if (gate !== 'go') return { status: gate };

  // Read before the claim: a store that cannot say who approved leaves the step unstarted, never written unattributed.
  const attribution = await attributionFor(ctx, run, spec.planVersion, ready.tool.risk);
  // Values filled as data are stored beside the placeholders that name them, so `tandem show` says what the model got.
  const claimed = await claim(ctx, step, { ...ready.args, ...ready.data });
  if (!claimed) return { status: 'lost' };
  options.onClaimed?.(claimed);

  const result = await invokeTool(ctx, step, ready, claimed, options, attribution);
  return settle(ctx, { ...step, attempt: claimed.attempt }, ready, result);
}

/** The step's identity in the store, and where its events and transitions go. */
interface StepInRun {
  key: { runId: string; planVersion: number; stepId: string };
  spec: StepSpec;
  events: EventLog;
  writes: StepWrites;
}

/** The tool and the args as it gets them (after its schema: a number stays a number, defaults filled). */
interface ReadyCall {
  tool: AnyTool;
  args: Record<string, unknown>;
  /** Values of references in the tool's `fillsAsData` args, which hold placeholders for them; absent when none. */
  data?: Record<string, unknown>;
}

type ArgsCheck = ({ ok: true } & ReadyCall) | { ok: false; message: string; code?: string };

/** Fills references and checks the args against the tool's schema and the repository allow-list; stores nothing. */
function checkArgs(ctx: Pick<AgentContext, 'config'>, spec: StepSpec, outputs: ReadonlyMap<string, Record<string, unknown>>): ArgsCheck {
  const tool = ctx.config.tools.get(spec.tool);
  if (!tool) return { ok: false, message: `unknown tool ${spec.tool}` };
  const asData = fillAsData(spec.args, tool.fillsAsData ?? [], outputs);
  if (!asData.ok) return { ok: false, message: `${spec.stepId}.args.${asData.error.message}` };
  const filled = fillReferences(asData.value.args, outputs, tool.quoteFilled?.bind(tool));
  if (!filled.ok) return { ok: false, message: `${spec.stepId}.args.${filled.error.message}` };
  const parsed = tool.input.safeParse(filled.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `${spec.stepId}.args.${issue?.path.join('.') ?? ''}: ${issue?.message} (after filling references)` };
  }
  const args = parsed.data as Record<string, unknown>;
  const changed = tool.refuseFilled?.(spec.args, args);
  if (changed) return { ok: false, message: `${spec.stepId}.args.${changed.at}: ${changed.message}`, code: changed.code };
  // Judged again once references are filled: a repository filled in at run time was not there to judge at approval, and the list
  // may have changed since. The filled args are final: `{{…}}` a filled value brought in is text, judged as it is (decision 026).
  const refusal = repositoryRefusal(ctx.config.settings.repositories, tool, args, 'filled');
  if (refusal)
    return {
      ok: false,
      message: `${spec.stepId}.args.${refusal.at}: ${plainText(refusal.reason)} (checked before the step ran; it was not run)`,
      code: REPO_NOT_ALLOWED,
    };
  const data = asData.value.data;
  return { ok: true, tool, args, ...(Object.keys(data).length ? { data } : {}) };
}

async function failBeforeStart(ctx: Pick<AgentContext, 'config' | 'store'>, step: StepInRun, message: string, code = 'invalid-args'): Promise<StepOutcome> {
  const error = { message: redactValue(message, ctx.config.settings.secrets), code };
  if (!(await ctx.store.setStepStatus({ ...step.key, from: ['pending'], to: 'failed', error }))) return { status: 'lost' };
  step.events.append('step-failed', { ...step.key, kind: step.spec.kind, error });
  return { status: 'failed', error };
}

/** Claims the step before the tool is called, storing the args the tool gets (the values a Confirm and the audit compare). */
async function claim(ctx: Pick<AgentContext, 'config' | 'replica'>, step: StepInRun, args: Record<string, unknown>): Promise<StepRecord | undefined> {
  // Alone on the store the lease only names us; with peers the heartbeat renews it while the tool runs,
  // so it can be short and a dead replica's step is found quickly.
  const leaseMs = ctx.replica.soleOwner ? stepTimeoutMs(ctx.config.settings.budgets) + 60_000 : ctx.replica.leases.settings.leaseMs;
  return step.writes.claimStep({
    ...step.key,
    owner: ctx.replica.owner,
    leaseMs,
    executedArgs: redactValue(args, ctx.config.settings.secrets),
    started: { kind: step.spec.kind, tool: step.spec.tool },
  });
}

async function invokeTool(
  ctx: AgentContext,
  step: StepInRun,
  call: ReadyCall,
  claimed: StepRecord,
  options: RunStepOptions,
  attribution: Attribution | undefined,
): Promise<CallOutcome> {
  const { key } = step;
  const retry = ctx.config.settings.retry ?? { retries: 3, baseDelayMs: 500 };
  const toolContext = {
    ...key,
    attempt: claimed.attempt,
    marker: `tandem:${key.runId}/${key.stepId}`,
    startedAt: claimed.startedAt ?? ctx.now(),
    progress: (note: string) => options.onProgress?.(redactValue(note, ctx.config.settings.secrets).slice(0, 200)),
    log: {
      info: (obj: object, msg?: string) => ctx.logger.info({ ...obj, ...key }, msg),
      warn: (obj: object, msg?: string) => ctx.logger.warn({ ...obj, ...key }, msg),
    },
  };
  const innerTools = createInnerTools(ctx, { ...key, attempt: claimed.attempt, signal: options.runSignal, events: options.events, toolContext });
  return callTool(
    call.tool,
    call.args,
    { ...toolContext, innerTools, ...(attribution ? { attribution } : {}), ...(call.data ? { filledData: call.data } : {}) },
    {
      timeoutMs: stepTimeoutMs(ctx.config.settings.budgets),
      runSignal: options.runSignal,
      retries: retry.retries,
      baseDelayMs: retry.baseDelayMs,
      onRetry: (error, attempt, delayMs) =>
        options.events.append('step-retried', { ...key, retry: attempt, delayMs, error: redactValue(error, ctx.config.settings.secrets) }),
    },
  );
}

type ClaimedStep = StepInRun & { attempt: number };
type FinalStatus = 'succeeded' | 'failed' | 'uncertain' | 'cancelled' | 'waiting';

/** Records what the call came to; 'lost' when someone moved the step while it ran. */
async function settle(ctx: AgentContext, step: ClaimedStep, call: ReadyCall, result: CallOutcome): Promise<StepOutcome> {
  if (result.status === 'ok') return settleOutput(ctx, step, call, result.output);
  if (result.status === 'pause') return settleQuestion(ctx, step, result.question);
  const error: StepErrorRecord = redactValue({ ...result.error }, ctx.config.settings.secrets);
  if (error.uncertain) return (await finish(ctx, step, 'uncertain', { error })) ? { status: 'uncertain', error } : { status: 'lost' };
  if (result.status === 'cancelled') return (await finish(ctx, step, 'cancelled', { error })) ? { status: 'cancelled' } : { status: 'lost' };
  const failed = await withEarlierChange(ctx, step, call, error);
  return (await finish(ctx, step, 'failed', { error: failed })) ? { status: 'failed', error: failed } : { status: 'lost' };
}

/**
 * A Retry's attempt of a write that failed before its call went through: what an earlier attempt made stands, so it
 * stays on the step, for the summary, the escalation and an Abort's undo (decision 053). Read only for a retry.
 */
async function withEarlierChange(ctx: AgentContext, step: ClaimedStep, call: ReadyCall, error: StepErrorRecord): Promise<StepErrorRecord> {
  if (step.attempt < 2 || call.tool.risk === 'read' || typeof error.url === 'string') return error;
  const { runId, planVersion, stepId } = step.key;
  const attempts = (await ctx.store.listAttempts(runId)).filter((a) => a.planVersion === planVersion && a.stepId === stepId);
  const madeBefore = earlierChange(attempts, step.attempt);
  return madeBefore ? { ...error, madeBefore } : error;
}

/** A forward step's output is judged against what the plan expected; an undo step's is not. */
async function settleOutput(ctx: AgentContext, step: ClaimedStep, call: ReadyCall, rawOutput: Record<string, unknown>): Promise<StepOutcome> {
  const { key, spec } = step;
  const output = limitOutput(rawOutput, ctx.config.settings.secrets);
  const verdict =
    spec.kind === 'forward'
      ? await evaluateStep(
          { llm: ctx.models.llm, secrets: ctx.config.settings.secrets, onUsage: ctx.models.usage(key.runId, 'evaluator') },
          {
            tool: call.tool,
            args: call.args,
            output: rawOutput,
            storedOutput: output,
            step: { id: spec.stepId, title: spec.title, expect: spec.expect },
            runId: key.runId,
          },
        )
      : { verdict: 'pass' as const, reason: '', by: 'none' as const };
  if (verdict.by !== 'none') step.events.append('step-evaluated', { ...key, verdict: verdict.verdict, reason: verdict.reason, by: verdict.by });
  if (verdict.verdict === 'fail') {
    const error = { message: `evaluation failed: ${verdict.reason}`, code: 'evaluation-failed' };
    return (await finish(ctx, step, 'failed', { output, error })) ? { status: 'failed', error } : { status: 'lost' };
  }
  const note = verdict.verdict === 'uncertain' ? `unchecked: ${verdict.reason}` : null;
  // A change nobody could check, or an answer something builds on, is a person's call before anything builds on it
  // (contract §5: an unchecked step is escalated). A read nothing depends on goes on, marked unchecked on the board
  // and in the summary, where its answer is shown for the person to judge (decision 053).
  if (note && spec.kind === 'forward' && (call.tool.risk !== 'read' || spec.hasDependents)) {
    const error = { message: note, code: UNCHECKED };
    return (await finish(ctx, step, 'failed', { output, error })) ? { status: 'failed', error } : { status: 'lost' };
  }
  return (await finish(ctx, step, 'succeeded', { output })) ? { status: 'succeeded', output, note } : { status: 'lost' };
}

/** The tool asked a person something: the question is stored with the message it owes, then the step waits. */
async function settleQuestion(ctx: AgentContext, step: ClaimedStep, asked: string): Promise<StepOutcome> {
  const { key } = step;
  const question = redactValue(asked, ctx.config.settings.secrets);
  if (!(await askedAlready(ctx, key))) await ctx.store.openQuestion({ ...key, question }, owedQuestion(ctx, key.stepId, question));
  if (!(await finish(ctx, step, 'waiting', {}))) return { status: 'lost' };
  await ctx.thread.owed.deliver(key.runId);
  return { status: 'waiting' };
}

/**
 * The step's question is open already: an earlier run of the step stored it, with the message it owes, and
 * stopped before the step was marked waiting (the commit's answer was lost, or the process died). Asking again
 * would store a second question under another key, and its message would reach the thread twice (contract §6).
 */
async function askedAlready(ctx: Pick<AgentContext, 'store'>, key: StepInRun['key']): Promise<boolean> {
  const open = await ctx.store.listQuestions(key.runId);
  return open.some((q) => q.planVersion === key.planVersion && q.stepId === key.stepId && q.answeredAt === null);
}

async function finish(
  ctx: AgentContext,
  step: ClaimedStep,
  status: FinalStatus,
  extra: { output?: Record<string, unknown> | null; error?: StepErrorRecord | null },
): Promise<boolean> {
  // What the step logged while it ran (a retry, its evaluation) is numbered ahead of its end.
  await step.events.flush();
  const ended = runEvent(`step-${status}`, { ...step.key, kind: step.spec.kind, attempt: step.attempt, error: extra.error ?? undefined });
  return step.writes.finishStep({ ...step.key, attempt: step.attempt, status, ...extra, events: [ended] });
}
