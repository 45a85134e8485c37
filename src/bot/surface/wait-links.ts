/**
 * Where each wait's message is (an escalation, a question, a Confirm, a plan's approval), as a permalink,
 * so the board links each waiting step, and a run waiting on an escalation of its own (a driver failure,
 * a failed replan), to it. The process that posts a message keeps its link and hands it to the agent's
 * store (`WaitMessagesPort`); a board drawn after a restart, or on another replica, reads the stored
 * links of the run's open waits whenever what it waits for changes (decision 037).
 */
import type { WaitKind, WaitMessagesPort, WaitRef } from '../../agent/ports/run-store.ts';
import type { BoardState } from '../../agent/ports/surface.ts';
import type { SlackClient } from './slack-client.ts';

/** What a board links: each waiting step's message by step id, and the run's own escalation. */
export interface BoardLinks {
  waitLinks: ReadonlyMap<string, string>;
  runWaitLink?: string;
}

export class WaitLinks {
  /** `runId/vN` → step id → permalink. */
  private readonly links = new Map<string, Map<string, string>>();
  /** runId → the permalink of the run's own (stepless) escalation. */
  private readonly runLinks = new Map<string, string>();
  /** runId → what waited when the stored links were last read: read again only when it changes. */
  private readonly readFor = new Map<string, string>();
  /** runId → links this process remembered while a read of the stored ones was under way (the read may predate them). */
  private readonly duringRead = new Map<string, { kind: WaitKind; planVersion: number | null; stepId: string | null; permalink: string }[]>();

  constructor(
    private readonly client: SlackClient,
    private readonly stored?: WaitMessagesPort,
  ) {}

  /**
   * The message at `ts` is what a wait of `kind` (of step `stepId`, if any) waits on; stored when the wait is
   * named (`wait`). Best effort: no permalink, no link.
   */
  async posted(input: {
    runId: string;
    kind: WaitKind;
    wait: WaitRef | undefined;
    planVersion: number | null;
    stepId: string | null;
    channel: string;
    ts: string;
  }): Promise<void> {
    const { runId, wait, channel, ts } = input;
    const permalink = await this.client.chat
      .getPermalink({ channel, message_ts: ts })
      .then((answer) => answer.permalink ?? null)
      .catch(() => null);
    if (permalink) this.remember(runId, input.kind, input.planVersion, input.stepId, permalink);
    if (wait) await this.stored?.posted({ runId, wait, channel, ts, permalink }).catch(() => undefined);
  }

  /** The links of one board, for the version it draws; the stored ones are read when what waits changed since. */
  async forBoard(runId: string, state: BoardState): Promise<BoardLinks> {
    const waiting = whatWaits(state);
    // Nothing waits now: whatever waits next is read afresh, even if it looks like what waited before (the same
    // step failing again, its new escalation posted by a peer).
    if (!waiting) this.readFor.delete(runId);
    if (this.stored && waiting && this.readFor.get(runId) !== waiting) {
      const since: { kind: WaitKind; planVersion: number | null; stepId: string | null; permalink: string }[] = [];
      this.duringRead.set(runId, since);
      const links = await this.stored.links(runId).catch(() => undefined);
      this.duringRead.delete(runId);
      if (links) {
        // The open waits' links replace what this process knew: an answered wait's link goes.
        this.readFor.set(runId, waiting);
        this.drop(runId);
        for (const link of [...links, ...since]) this.remember(runId, link.kind, link.planVersion, link.stepId, link.permalink);
      }
    }
    const runWaitLink = this.runLinks.get(runId);
    return { waitLinks: this.links.get(`${runId}/v${state.planVersion}`) ?? new Map(), ...(runWaitLink ? { runWaitLink } : {}) };
  }

  /** The run ended: nothing waits any more. */
  forget(runId: string): void {
    this.drop(runId);
    this.readFor.delete(runId);
  }

  private drop(runId: string): void {
    for (const key of [...this.links.keys()]) if (key.startsWith(`${runId}/`)) this.links.delete(key);
    this.runLinks.delete(runId);
  }

  private remember(runId: string, kind: WaitKind, planVersion: number | null, stepId: string | null, permalink: string): void {
    this.duringRead.get(runId)?.push({ kind, planVersion, stepId, permalink });
    if (stepId === null) {
      // Only an escalation is about the run as a whole; a plan's approval or questions are its own message.
      if (kind === 'escalation') this.runLinks.set(runId, permalink);
      return;
    }
    const key = `${runId}/v${planVersion ?? 0}`;
    const steps = this.links.get(key) ?? new Map<string, string>();
    steps.set(stepId, permalink);
    this.links.set(key, steps);
  }
}

/** What the board shows waiting for a person, as one string; undefined when nothing waits. */
function whatWaits(state: BoardState): string | undefined {
  const steps = state.steps.filter((step) => step.status === 'waiting' || step.waitingFor === 'decision').map((step) => `${step.kind}/${step.stepId}`);
  if (steps.length === 0 && state.runStatus !== 'paused') return undefined;
  return `${state.runStatus}|v${state.planVersion}|${steps.join(',')}`;
}
