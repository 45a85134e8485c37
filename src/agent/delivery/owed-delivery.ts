/**
 * What a run owes its thread is recorded with the change that owes it (see finishRun) and delivered
 * from the store: by the replica that recorded it at once, and by any replica, on a sweep, when that
 * one died first. A delivery that fails stays owed and is tried again; a delivery that may have
 * reached the thread before a crash is looked up by its key instead of posted again.
 */
import { z } from 'zod';
import { TextSchema } from '../text/text.ts';
import { RunVerdictSchema } from '../model/run-outcome.ts';
import { StepResultSchema } from '../model/step-results.ts';
import type { DeliveryContext, OwedPump } from './delivery-context.ts';
import type { ConfirmationRecord, EscalationRecord, NewOwedMessage, OweAlong, OwedMessage, RunRecord } from '../ports/run-store.ts';
import type { EscalationOffer, RunSummary } from '../ports/surface.ts';

/** How long the recording replica has to deliver before a peer may; renewed by every claim. */
export const OWED_LEASE_MS = 30_000;

const finishedPayload = z.object({
  outcome: z.enum(['succeeded', 'failed', 'aborted', 'cancelled', 'rejected', 'expired']),
  goal: z.string(),
  reason: TextSchema.nullable(),
  changes: z.array(z.object({ title: z.string(), url: z.string().nullable() })),
  rolledBack: z.array(z.object({ title: z.string(), status: z.string() })),
  durationMs: z.number(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  costUsd: z.number(),
  models: z.array(z.object({ role: z.string(), model: z.string(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() })).optional(),
  fallbackPlanner: z.object({ author: z.string(), reason: z.string() }).nullable().optional(),
  // Absent from summaries owed before they existed: those read as before.
  verdict: RunVerdictSchema.optional(),
  results: z.array(StepResultSchema).optional(),
  fromRunbook: z.boolean().optional(),
  ran: z.boolean().optional(),
  confirmsAsked: z.boolean().optional(),
  expired: z.boolean().optional(),
});

/** The summary reply (and the board's final state before it) a finished run owes. */
export function owedSummary(runId: string, summary: Omit<RunSummary, 'run'>): NewOwedMessage {
  return { id: `${runId}/run-finished`, kind: 'run-finished', payload: { ...summary } };
}

const SWEEP_BATCH = 50;
/**
 * A start-up sweep's one claim: the backlog a stopped process left. While it is delivered the runs that process
 * left executing are driven again, and every statement of a delivery waits its turn behind theirs in the store's
 * pool; claimed fifty at a time and delivered a few runs at a time, the last waiting run's message went only
 * after the executing runs had finished their whole plans (issue 34: a thousand open runs all moving).
 */
const START_UP_CLAIM = 1000;

/** The one pump of owed messages in a process (`OwedPump`, delivery-context.ts), reached as `ctx.thread.owed`. */
export function createOwedPump(context: () => DeliveryContext): OwedPump {
  /**
   * Owed messages this pump is delivering now. A Slack that hangs can hold one delivery for minutes: a second
   * claim of the same message meanwhile (the run's own delivery, or a sweep) leaves it to the first, which would
   * otherwise race it to the thread and post it twice.
   */
  const inFlight = new Set<string>();
  /**
   * Runs with a message held back behind one this pump was delivering: once that delivery ends well, the run's
   * delivery goes again at once (its own claim takes this replica's leases back), instead of after the retry wait
   * (an escalation owed while a question was being posted reached the thread seconds late).
   */
  const after: Delivering = { inFlight, heldBack: new Set(), again: (runId) => void pump.deliver(runId).catch(() => undefined) };
  const pump: OwedPump = {
    async deliver(runId) {
      const ctx = context();
      await deliverClaimed(ctx, after, () => ctx.store.claimOwed({ owner: ctx.replica.owner, leaseMs: OWED_LEASE_MS, all: false, runId, limit: 20 }));
    },
    /**
     * Batch after batch while a claim comes back full and every delivery went, so a thousand runs waiting on their
     * messages after a crash are not served fifty per sweep (issue 34). A failed delivery ends the sweep; the timer
     * tries again. At start-up the first claim takes the whole backlog (up to START_UP_CLAIM).
     */
    async sweep({ startUp }) {
      const ctx = context();
      const claim = (limit: number) => () =>
        ctx.store.claimOwed({ owner: ctx.replica.owner, leaseMs: OWED_LEASE_MS, all: startUp && ctx.replica.soleOwner, limit });
      for (let limit = startUp ? START_UP_CLAIM : SWEEP_BATCH; ; limit = SWEEP_BATCH) {
        const { claimed, failed } = await deliverClaimed(ctx, after, claim(limit));
        if (claimed < limit || failed) return;
      }
    },
  };
  return pump;
}

/** What the pump's deliveries share: the messages under way, and the runs waiting for one of them to end. */
interface Delivering {
  inFlight: Set<string>;
  heldBack: Set<string>;
  again(runId: string): void;
}

/**
 * How many messages the claim took, and whether any was left owed (under way here, failed, or behind one that was).
 * Every run of the claim is delivered at once (each run's messages in order): one at a time, or a few at a time,
 * each delivery's read and mark wait their turn behind a busy store's queue one after another. All but the first
 * SWEEP_BATCH runs wait until Slack took one of those (or they are done): a Slack that fails is tried fifty times,
 * not a thousand, and the rest are let go to their leases' end, when a later sweep claims them again.
 */
async function deliverClaimed(
  ctx: DeliveryContext,
  { inFlight, heldBack, again }: Delivering,
  claim: () => Promise<OwedMessage[]>,
): Promise<{ claimed: number; failed: boolean }> {
  // A run whose earlier message is not delivered (under way here, or failed just now) gets its later ones after it, so its thread reads in order.
  const waiting = new Set<string>();
  const claimed = await claim();
  // The whole batch is this delivery's from the claim on, not only the message being sent: one behind a slow
  // Slack (or a busy store) for longer than its lease would otherwise be claimed again and sent twice.
  const ours = new Set(claimed.flatMap((message) => (inFlight.has(message.id) ? [] : [message.id])));
  for (const id of ours) inFlight.add(id);
  const letGo = (id: string) => (ours.delete(id), inFlight.delete(id));
  const renewal = setInterval(() => {
    for (const id of ours) void ctx.store.deferOwed({ id, retryInMs: OWED_LEASE_MS }).catch(() => undefined);
  }, OWED_LEASE_MS / 3);
  renewal.unref?.();
  let sent = 0;
  const tried = new Set<string>();
  let took!: () => void;
  const tookOne = new Promise<void>((resolve) => (took = resolve));
  const deliverRun = async (messages: OwedMessage[]) => {
    for (const message of messages) {
      if (!ours.has(message.id)) {
        waiting.add(message.runId);
        heldBack.add(message.runId);
        continue;
      }
      if (waiting.has(message.runId)) {
        letGo(message.id);
        await ctx.store.deferOwed({ id: message.id, retryInMs: ctx.replica.leases.settings.owedRetryMs }).catch(() => undefined);
        continue;
      }
      try {
        tried.add(message.runId);
        await deliverOne(ctx, message);
        sent++;
        took();
        await ctx.store.markOwedSent(message.id);
        letGo(message.id);
      } catch (error) {
        letGo(message.id);
        waiting.add(message.runId);
        ctx.logger.warn({ err: error, runId: message.runId, owed: message.id, attempts: message.attempts }, 'delivering an owed message failed; will retry');
        await ctx.store.deferOwed({ id: message.id, retryInMs: ctx.replica.leases.settings.owedRetryMs }).catch(() => undefined);
      }
    }
  };
  const runs = new Map<string, OwedMessage[]>();
  for (const message of claimed) runs.set(message.runId, [...(runs.get(message.runId) ?? []), message]);
  const byRun = [...runs.values()];
  try {
    const first = Promise.all(byRun.slice(0, SWEEP_BATCH).map(deliverRun));
    const rest = byRun.slice(SWEEP_BATCH);
    // Once Slack took one (or the first runs are done), the rest go at once, not a turn of the store's queue later.
    if (rest.length) await Promise.race([first, tookOne]);
    if (sent > 0 || waiting.size === 0) await Promise.all([first, ...rest.map(deliverRun)]);
    else {
      for (const message of rest.flat()) letGo(message.id);
      await first;
    }
  } finally {
    clearInterval(renewal);
    for (const id of ours) inFlight.delete(id);
  }
  // A run held back behind this delivery goes on now that it ended well; after a failure it waits its retry.
  for (const runId of tried) if (heldBack.delete(runId) && !waiting.has(runId)) again(runId);
  return { claimed: claimed.length, failed: waiting.size > 0 };
}

/** Owed along with an escalation (`openEscalation`): the message offering the answers that can work, as decided when it was opened. */
export const owedEscalation = (ctx: DeliveryContext, offer: EscalationOffer | undefined): OweAlong => ({
  payload: offer ? { offer } : {},
  owner: ctx.replica.owner,
  leaseMs: OWED_LEASE_MS,
});
/** The key an escalation's message was delivered with (the store owes it as `<run>/escalation/<id>`). */
export const escalationMessageKey = (escalation: Pick<EscalationRecord, 'runId' | 'id'>): string => `${escalation.runId}/escalation/${escalation.id}`;
/** Owed along with an ask_human question (`openQuestion`). */
export const owedQuestion = (ctx: DeliveryContext, stepId: string, question: string): OweAlong => ({
  payload: { stepId, question },
  owner: ctx.replica.owner,
  leaseMs: OWED_LEASE_MS,
});
/** Owed along with a plan's own questions for the requester (`openQuestion` with no step). */
export const owedPlanQuestions = (ctx: DeliveryContext, questions: readonly string[]): OweAlong => ({
  payload: { stepId: null, questions: [...questions] },
  owner: ctx.replica.owner,
  leaseMs: OWED_LEASE_MS,
});

/** A Confirm request for a late-bound target: record it with `ctx.store.owe` (or in the transaction that asks), then hand the run to the pump (`ctx.thread.owed.deliver`). */
export function owedConfirmation(runId: string, planVersion: number, stepId: string): NewOwedMessage {
  return { id: `${runId}/confirm/${planVersion}/${stepId}`, kind: 'confirm-target', payload: { planVersion, stepId } };
}

const escalationAnswer = z.enum(['retry', 'skip', 'replan', 'abort', 'approve', 'modify', 'reject', 'try-again']);
const escalationPayload = z.object({
  escalationId: z.string(),
  offer: z
    .object({
      answers: z.array(escalationAnswer),
      happened: TextSchema,
      stepTitle: z.string().nullable(),
      changed: z.array(z.string()),
      mayHaveChanged: z.array(z.string()).optional(),
      onHold: z.array(z.string()),
      skipAlsoSkips: z.array(z.string()).optional(),
      abortRollsBack: z.boolean(),
      plan: z.object({ version: z.number(), digest: z.string().optional() }).optional(),
    })
    .optional(),
});

/** A row owed before escalations carried their offer: what those messages offered then, with the stored words. */
const offerOfOlderRow = (escalation: EscalationRecord): EscalationOffer => ({
  answers: ['retry', 'skip', 'replan', 'abort'],
  happened: escalation.message,
  stepTitle: null,
  changed: [],
  onHold: [],
  abortRollsBack: false,
});
const questionPayload = z.union([
  z.object({ stepId: z.string(), question: z.string(), questionId: z.string().optional() }),
  // A plan's questions for the requester, asked before any step runs.
  z.object({ stepId: z.null(), questions: z.array(z.string()), questionId: z.string().optional() }),
]);
const confirmationPayload = z.object({ planVersion: z.number(), stepId: z.string() });

async function deliverOne(ctx: DeliveryContext, message: OwedMessage): Promise<void> {
  const run = await ctx.store.getRun(message.runId);
  if (!run) return;
  const delivery = { key: message.id, mayExist: message.attempts > 1 };
  if (message.kind === 'run-finished') {
    await ctx.thread.boards.changed(run.id, run); // the board's final state lands before the summary
    await ctx.thread.deliverySurface.finish(summaryOf(run, message), delivery);
    return;
  }
  if (message.kind === 'escalation') {
    const { escalationId, offer } = escalationPayload.parse(message.payload);
    const escalation = await ctx.store.getEscalation(escalationId);
    if (escalation) await ctx.thread.deliverySurface.escalate(run, escalation, offer ?? offerOfOlderRow(escalation), delivery);
    return;
  }
  if (message.kind === 'question') {
    const payload = questionPayload.parse(message.payload);
    const asked = payload.questionId ? { questionId: payload.questionId } : undefined;
    if (payload.stepId === null) await ctx.thread.deliverySurface.askRequester(run, payload.questions, asked, delivery);
    else await ctx.thread.deliverySurface.ask(run, payload.stepId, payload.question, delivery, asked);
    return;
  }
  if (message.kind === 'confirm-target') {
    const { planVersion, stepId } = confirmationPayload.parse(message.payload);
    const request = (await ctx.store.listConfirmations(run.id)).find((c) => c.planVersion === planVersion && c.stepId === stepId);
    if (request?.status === 'pending') await ctx.thread.deliverySurface.confirmTarget(run, await withStepTitle(ctx, request), delivery);
    return;
  }
  ctx.logger.warn({ runId: run.id, owed: message.id, kind: message.kind }, 'owed message of an unknown kind dropped');
}

/** A Confirm request with its step's sentence, so the thread names the step as the plan did, not by id and tool. */
export async function withStepTitle(ctx: DeliveryContext, confirmation: ConfirmationRecord): Promise<ConfirmationRecord> {
  const step = (await ctx.store.listSteps(confirmation.runId, confirmation.planVersion)).find((s) => s.stepId === confirmation.stepId);
  return { ...confirmation, stepTitle: step?.title ?? null };
}

function summaryOf(run: RunRecord, message: OwedMessage): RunSummary {
  const payload = finishedPayload.parse(message.payload);
  return { run, ...payload, rolledBack: payload.rolledBack as RunSummary['rolledBack'] };
}
