import type { RunRecord } from '../../agent/ports/run-store.ts';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';
import { context } from '../views/text.ts';
import { decidedBlocks, hasLiveButtons } from '../views/plan/decided-blocks.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION } from '../views/plan/plan-message.ts';
import { retireLiveCopies, type Sweep } from './live-copies.ts';
import { progressInThread } from './plan-progress.ts';

/** Where a run's messages are: its channel and thread. */
interface Thread {
  channel: string;
  threadTs: string;
}

/** A plan message's decision buttons (View full plan is not one: it stays). */
const PLAN_BUTTONS = { actionIds: [PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION] };

interface Posted {
  channel: string;
  ts: string;
  version: number;
  view: MessageView;
  /** The same message drawn again with other approval progress lines (under a policy file). */
  redraw?: (approvalProgress: readonly string[]) => MessageView | undefined;
}

/**
 * The newest plan message of each run, so its buttons can be taken away once they can no longer do
 * anything: a newer version was posted, or the run ended. Clicks on old buttons are refused by the
 * agent anyway; this keeps people from trying. Held in memory; a process that did not post the plan
 * (after a restart, or another replica) finds what still offers the plan's buttons in the thread instead.
 */
export class PlanMessages {
  private readonly latest = new Map<string, Posted>();
  /** Runs whose plan this process saw decided (a click rewrote the message, or it ran): nothing is left to look for at their end. */
  private readonly settled = new Set<string>();

  constructor(
    private readonly client: SlackClient,
    private readonly logger: Logger,
  ) {}

  /** Records a newly posted version and retires the previous one (looked for in the thread when another process posted it). */
  async posted(runId: string, thread: Thread, message: Posted): Promise<void> {
    const previous = this.latest.get(runId);
    this.latest.set(runId, message);
    const line = `:arrows_counterclockwise: Replaced by version ${message.version} below.`;
    if (previous && previous.version < message.version) await this.retire(previous, line);
    else if (!previous && message.version > 1)
      await retireLiveCopies(this.client, this.logger, { ...thread, except: message.ts }, [{ button: PLAN_BUTTONS, after: line }]);
  }

  /**
   * The run ended: a plan still offering its buttons (the run was cancelled, expired or failed to replan undecided) loses
   * them, and `line` says how. A run this process neither posted nor saw decided is looked for in the thread: the
   * sweep is returned, for the caller's one read of the thread at the run's end.
   */
  async runEnded(run: Pick<RunRecord, 'id' | 'currentPlanVersion'>, line: string): Promise<Sweep[]> {
    const last = this.latest.get(run.id);
    this.latest.delete(run.id);
    const settled = this.settled.delete(run.id);
    if (last) await this.retire(last, line);
    // A run that never had a plan (it failed to plan) has no plan message to look for.
    else if (!settled && run.currentPlanVersion !== null) return [{ button: PLAN_BUTTONS, after: line }];
    return [];
  }

  /**
   * A click counted towards a version that still waits: its message shows the progress now ("1 of 2 approvals")
   * instead of what it showed when posted. Drawn afresh when this process posted it; otherwise (after a restart, or
   * on another replica) found in the thread and its progress sections swapped (plan-progress.ts).
   */
  async progressChanged(run: Pick<RunRecord, 'id' | 'conversation'>, version: number, lines: readonly string[]): Promise<void> {
    const posted = this.latest.get(run.id);
    const view = posted?.version === version ? posted.redraw?.(lines) : undefined;
    if (!posted || !view) return progressInThread(this.client, this.logger, run.conversation, { runId: run.id, version }, lines);
    try {
      await this.client.chat.update({ channel: posted.channel, ts: posted.ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
      posted.view = view;
    } catch (error) {
      this.logger.warn({ err: describeError(error), channel: posted.channel }, 'could not show the approval progress on the plan');
    }
  }

  /** After a click decided the plan, the listener already rewrote the message. */
  forget(runId: string): void {
    this.latest.delete(runId);
    this.settled.add(runId);
  }

  private async retire(message: Posted, line: string): Promise<void> {
    if (!hasLiveButtons(message.view.blocks)) return;
    // View full plan stays: every argument remains reachable in full, whatever became of the version.
    const blocks = [...decidedBlocks(message.view.blocks), context(line)];
    try {
      await this.client.chat.update({ channel: message.channel, ts: message.ts, text: message.view.text, blocks: asSlackBlocks(blocks) });
    } catch (error) {
      this.logger.warn({ err: describeError(error), channel: message.channel }, 'could not retire an old plan message');
    }
  }
}
