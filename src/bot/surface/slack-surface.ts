import { randomUUID } from 'node:crypto';
import type { ConfirmationRecord, EscalationRecord, RunRecord, WaitMessagesPort } from '../../agent/ports/run-store.ts';
import type {
  AskedQuestion,
  BoardState,
  ClosedEscalation,
  Delivery,
  EscalationOffer,
  ProposedPlan,
  RunSummary,
  Surface,
  WaitAddressee,
} from '../../agent/ports/surface.ts';
import type { Logger } from '../../observability/logger.ts';
import { AgentStatus, SESSION_OF_RUN } from './agent-status.ts';
import { BoardPublisher, type BoardStyle } from './board-publisher.ts';
import { PlanMessages } from './plan-messages.ts';
import { describeError } from './replies.ts';
import { findOwedInThread, owedMetadata, postFindable, type PostSettle } from './owed-messages.ts';
import { isPostOutcomeUnknown, type SlackClient } from './slack-client.ts';
import { closedEscalationMessage, escalationMessage } from '../views/run/escalation.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';
import { planMessages } from '../views/plan/plan-message.ts';
import { planningFailedMessage, plannerUnavailableMessage } from '../views/run/planner-unavailable.ts';
import { questionMessage } from '../views/run/question.ts';
import { addressed } from '../views/run/reassign.ts';
import { WaitLinks } from './wait-links.ts';
import { confirmSweep, openWaitSweeps, reassignSweep, retireLiveCopies } from './live-copies.ts';
import { isExpiredSummary, summaryMessages } from '../views/run/summary.ts';
import { targetConfirmationMessages } from '../views/run/target-confirmation.ts';
import { escapeText, mention, section, storedWords, truncate } from '../views/text.ts';
import type { Text } from '../../agent/text/text.ts';

export interface SlackSurfaceOptions {
  client: SlackClient;
  logger: Logger;
  /** TANDEM_ESCALATE_TO. */
  escalateTo: string | undefined;
  boardIntervalMs?: number;
  boardRetryBaseMs?: number;
  onBoardPosted?: (runId: string, ts: string) => Promise<void>;
  /** TANDEM_BOARD_STYLE. */
  boardStyle?: BoardStyle;
  /** TANDEM_SHOW_COST: summaries show tokens and cost. */
  showCost?: boolean;
  /** TANDEM_CONFIDENCE_THRESHOLD: below it a plan says the planner is unsure (above it, confidence is not shown). */
  confidenceThreshold?: number;
  /** TANDEM_APPROVERS: the plan names who can approve when it is not everyone. */
  approvers?: readonly string[];
  /** How long a post Slack did not answer is looked for in the thread before it counts as not posted (tests shorten it). */
  postSettle?: PostSettle;
  /** Where each wait's message was posted is stored here, and boards read it back (any replica, after a restart). */
  waitMessages?: WaitMessagesPort;
}

/** Every message about a run goes in the thread of the mention that started it. */
export class SlackSurface implements Surface {
  readonly board: BoardPublisher;
  /** The "Planning…" message per run, replaced by whatever comes next so the thread stays short. */
  private readonly planningTs = new Map<string, string>();
  private readonly plans: PlanMessages;
  private readonly status: AgentStatus;
  /** Runs whose planning failure the thread was told (once): their summary would say it a second time. */
  private readonly planningFailureTold = new Set<string>();
  /** Runs this process posted a Confirm for, as summaries owed before `confirmsAsked` (the store's word) do not say it. */
  private readonly confirmsPosted = new Set<string>();
  /** Where each waiting step's message is: the board links the step to it. */
  private readonly waitLinks: WaitLinks;

  constructor(private readonly options: SlackSurfaceOptions) {
    this.waitLinks = new WaitLinks(options.client, options.waitMessages);
    this.plans = new PlanMessages(options.client, options.logger);
    this.status = new AgentStatus(options.client, options.logger);
    this.board = new BoardPublisher({
      client: options.client,
      logger: options.logger,
      intervalMs: options.boardIntervalMs,
      retryBaseMs: options.boardRetryBaseMs,
      onBoardPosted: options.onBoardPosted,
      style: options.boardStyle,
      escalateTo: options.escalateTo,
      postSettle: options.postSettle,
      waitLinks: this.waitLinks,
    });
  }

  /** Slack's own "is planning…" where it takes it (it clears on the bot's next message), else a message. */
  async planning(run: RunRecord): Promise<void> {
    await this.status.session(run.id, run.conversation, 'processing', run.task);
    if (await this.status.threadStatus(run.conversation, 'is planning…')) return;
    const ts = await this.post(run, { text: ':thought_balloon: Planning…', blocks: [section(':thought_balloon: Planning…')] });
    if (ts) this.planningTs.set(run.id, ts);
  }

  async proposePlan(proposal: ProposedPlan): Promise<void> {
    const { run, version } = proposal;
    // A plan too long for one message continues in more; the buttons close the last, which is the one tracked.
    let last: { ts: string; view: MessageView } | undefined;
    const { confidenceThreshold, approvers } = this.options;
    const options = { ...(confidenceThreshold === undefined ? {} : { confidenceThreshold }), ...(approvers ? { approvers } : {}) };
    for (const view of planMessages(proposal, options)) {
      const ts = await this.post(run, view);
      if (ts) last = { ts, view };
    }
    // The progress lines come last in the plan, so they are in the message with the buttons.
    const redraw = (approvalProgress: readonly string[]) => planMessages({ ...proposal, approvalProgress: [...approvalProgress] }, options).at(-1);
    if (last) await this.plans.posted(run.id, run.conversation, { channel: run.conversation.channel, ts: last.ts, version, view: last.view, redraw });
    if (last && !proposal.autoApproved) {
      const wait = { kind: 'approval' as const, runId: run.id, planVersion: version };
      await this.waitLinks.posted({
        runId: run.id,
        kind: 'approval',
        wait,
        planVersion: version,
        stepId: null,
        channel: run.conversation.channel,
        ts: last.ts,
      });
    }
    if (!proposal.autoApproved) await this.status.session(run.id, run.conversation, 'suspended');
  }

  async approvalProgress(run: RunRecord, planVersion: number, lines: readonly string[]): Promise<void> {
    await this.plans.progressChanged(run, planVersion, lines);
  }

  /** A plan's buttons were used (approve/reject): nothing left to retire. */
  planDecided(runId: string): void {
    this.plans.forget(runId);
  }

  /** Questions from the plan (with an Answer button), or a sentence about what the run cannot do (e.g. no model configured). */
  async askRequester(run: RunRecord, questions: string[], asked: AskedQuestion = {}, delivery?: Delivery): Promise<void> {
    const asks = questions.some((q) => q.trim().endsWith('?'));
    if (asks) {
      const view = questionMessage({ runId: run.id, asked: run.requester, questions, ...(asked.questionId ? { questionId: asked.questionId } : {}) });
      const ts = await this.post(run, addressed(view, asked.addressee), delivery);
      if (ts) await this.questionPosted(run, asked.questionId, null, ts);
      return;
    }
    const body = questions.length === 1 ? escapeText(questions[0]!) : questions.map((q) => `• ${escapeText(q)}`).join('\n');
    const text = `${mention(run.requester)} ${body}`;
    await this.post(run, { text: truncate(text, 3000), blocks: [section(text)] });
  }

  async reportProgress(run: RunRecord, board: BoardState): Promise<void> {
    // Execution means the plan was decided: the click's listener rewrote its message (Approve on it, or Approve
    // anyway on an escalation), or it ran without a click.
    if (board.runStatus === 'executing') this.plans.forget(run.id);
    this.board.report(run.conversation, run.boardRef, board);
    const session = SESSION_OF_RUN[board.runStatus];
    if (session) await this.status.session(run.id, run.conversation, session);
  }

  async escalate(run: RunRecord, escalation: EscalationRecord, offer: EscalationOffer, delivery?: Delivery): Promise<void> {
    await this.status.session(run.id, run.conversation, 'suspended');
    const ts = await this.post(run, addressed(escalationMessage({ escalation, offer, escalateTo: this.options.escalateTo }), offer.addressee), delivery);
    if (!ts) return;
    const wait = { kind: 'escalation' as const, escalationId: escalation.id };
    await this.waitLinks.posted({
      runId: run.id,
      kind: 'escalation',
      wait,
      planVersion: escalation.planVersion,
      stepId: escalation.stepId,
      channel: run.conversation.channel,
      ts,
    });
  }

  /** Escalations another answer closed: each message, found by its key, becomes one line saying so (best effort). */
  async escalationsClosed(run: RunRecord, closed: readonly ClosedEscalation[], closedBy: Text): Promise<void> {
    for (const { escalation, stepTitle, key } of closed) {
      const ts = await findOwedInThread(this.options.client, run.conversation, key);
      if (!ts) continue;
      const view = closedEscalationMessage({ escalation, stepTitle, closedBy });
      await this.options.client.chat.update({ channel: run.conversation.channel, ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
    }
  }

  /** An ask_human step: the question with an Answer button (the step's id stays in the logs). */
  async ask(run: RunRecord, stepId: string, question: string, delivery?: Delivery, asked: AskedQuestion = {}): Promise<void> {
    await this.status.session(run.id, run.conversation, 'suspended');
    const view = questionMessage({ runId: run.id, asked: run.requester, questions: [question], ...(asked.questionId ? { questionId: asked.questionId } : {}) });
    const ts = await this.post(run, addressed(view, asked.addressee), delivery);
    if (ts) await this.questionPosted(run, asked.questionId, stepId, ts);
  }

  async confirmTarget(run: RunRecord, confirmation: ConfirmationRecord, delivery?: Delivery, addressee?: WaitAddressee): Promise<void> {
    const views = targetConfirmationMessages({ confirmation, escalateTo: this.options.escalateTo }).map((view) => addressed(view, addressee));
    this.confirmsPosted.add(run.id);
    // Each message of the request is its own owed post, so a redelivery sends only the ones missing.
    let last: string | undefined;
    for (const [index, view] of views.entries()) last = await this.post(run, view, delivery && { ...delivery, key: `${delivery.key}#${index}` });
    // The buttons close the last message of the request: that is the one the step waits on.
    const { planVersion, stepId } = confirmation;
    const wait = { kind: 'confirm' as const, runId: run.id, planVersion, stepId };
    if (last) await this.waitLinks.posted({ runId: run.id, kind: 'confirm', wait, planVersion, stepId, channel: run.conversation.channel, ts: last });
  }

  /** An expired Confirm, or failed undo: every copy in the thread, whoever posted it, loses its buttons and says it expired. */
  async confirmExpired(run: RunRecord, confirmation: ConfirmationRecord, why: Text): Promise<void> {
    await retireLiveCopies(this.options.client, this.options.logger, run.conversation, [confirmSweep(confirmation, `:hourglass: ${storedWords(why, 500)}`)]);
  }
  async escalationExpired(run: RunRecord, escalation: EscalationRecord, why: Text): Promise<void> {
    const sweep = reassignSweep({ kind: 'escalation', escalationId: escalation.id }, `:hourglass: ${storedWords(why, 500)}`);
    await retireLiveCopies(this.options.client, this.options.logger, run.conversation, [sweep]);
  }

  /** A question owed before questions were named by id links its step on this process's boards only. */
  private async questionPosted(run: RunRecord, questionId: string | undefined, stepId: string | null, ts: string): Promise<void> {
    const wait = questionId ? { kind: 'question' as const, runId: run.id, questionId } : undefined;
    await this.waitLinks.posted({ runId: run.id, kind: 'question', wait, planVersion: run.currentPlanVersion, stepId, channel: run.conversation.channel, ts });
  }

  /** The thread's permalink (chat.getPermalink of the message that started it), for attribution lines. */
  async threadLink(run: RunRecord): Promise<string | undefined> {
    const { channel, threadTs } = run.conversation;
    const found = await this.options.client.chat.getPermalink({ channel, message_ts: threadTs });
    return found.permalink;
  }

  async notify(run: RunRecord, text: Text): Promise<void> {
    // A notice while the run is still planning its first version is why planning failed.
    if (run.status === 'planning' && run.currentPlanVersion === null) {
      this.options.logger.info({ runId: run.id, reason: storedWords(text, 2000) }, 'planning failed');
      await this.post(run, planningFailedMessage({ reason: text }));
      this.planningFailureTold.add(run.id);
      return;
    }
    const words = storedWords(text, 2900);
    await this.post(run, { text: words, blocks: [section(words)] });
  }

  async plannerUnavailable(run: RunRecord, reason: Text): Promise<void> {
    await this.post(run, plannerUnavailableMessage({ runId: run.id, reason }));
    this.planningFailureTold.add(run.id);
  }

  /** The board's final state lands before the summary, so the thread reads in order. */
  async finish(summary: RunSummary, delivery?: Delivery): Promise<void> {
    // A Reject click's listener already rewrote its message (and told us, so nothing is left to retire);
    // anything else that ends an undecided run (cancel, a failed replan, an expired approval) leaves
    // buttons that must go.
    const planSweeps = await this.plans.runEnded(summary.run, isExpiredSummary(summary) ? ':hourglass: Plan expired.' : `Run ${summary.outcome}.`);
    const sweeps = [...planSweeps, ...openWaitSweeps(summary, this.confirmsPosted.delete(summary.run.id))];
    await retireLiveCopies(this.options.client, this.options.logger, summary.run.conversation, sweeps);
    await this.board.finish(summary.run.id);
    this.waitLinks.forget(summary.run.id);
    // A run that failed to plan was told why in one message; a summary would repeat it (nothing ran, nothing changed).
    const told = this.planningFailureTold.delete(summary.run.id);
    if (!(told && summary.outcome === 'failed' && summary.run.currentPlanVersion === null)) {
      // A model's long answer follows the summary whole, each message under a key of its own (found, not posted twice).
      const [first, ...rest] = summaryMessages(summary, { showCost: this.options.showCost === true });
      await this.post(summary.run, first!, delivery);
      for (const [index, view] of rest.entries()) await this.post(summary.run, view, delivery && { ...delivery, key: `${delivery.key}/answer-${index + 1}` });
    }
    await this.status.session(summary.run.id, summary.run.conversation, 'closed');
  }

  /**
   * Posts in the run's thread; the first post after "Planning…" takes that message's place. Every post
   * carries a key in its metadata (an owed message its owed key), so one that may be there already (an
   * earlier delivery, or a post whose answer Slack never sent back) is found, not posted twice.
   */
  private async post(run: RunRecord, view: MessageView, delivery?: Delivery): Promise<string | undefined> {
    // A run that fails at once owes an escalation while its board's first post is still on its way.
    await this.board.firstPosted(run.id);
    if (delivery?.mayExist) {
      const found = await findOwedInThread(this.options.client, run.conversation, delivery.key);
      if (found) return found;
    }
    const key = delivery?.key ?? `${run.id}/post/${randomUUID()}`;
    const placeholder = this.planningTs.get(run.id);
    if (placeholder) {
      this.planningTs.delete(run.id);
      try {
        await this.options.client.chat.update({
          channel: run.conversation.channel,
          ts: placeholder,
          text: view.text,
          blocks: asSlackBlocks(view.blocks),
          metadata: owedMetadata(key),
        });
        return placeholder;
      } catch (error) {
        this.options.logger.warn({ err: describeError(error), runId: run.id }, 'could not replace the planning message; posting instead');
      }
    }
    try {
      return await postFindable(this.options.client, run.conversation, key, view, this.options.postSettle);
    } catch (error) {
      // An owed message stays owed and is looked for before it is sent again; anything else is sent once
      // more here, now that the thread has shown for a while that the first did not land.
      if (delivery || !isPostOutcomeUnknown(error)) throw error;
      this.options.logger.warn({ err: describeError(error), runId: run.id }, 'a post got no answer and is not in the thread; posting it again');
      return await postFindable(this.options.client, run.conversation, key, view, this.options.postSettle);
    }
  }
}
