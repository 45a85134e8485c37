import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';
import { context } from '../views/text.ts';
import { decidedBlocks, hasLiveButtons } from '../views/plan/decided-blocks.ts';

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
 * agent anyway; this keeps people from trying. In memory: after a restart the refusal still holds.
 */
export class PlanMessages {
  private readonly latest = new Map<string, Posted>();

  constructor(
    private readonly client: SlackClient,
    private readonly logger: Logger,
  ) {}

  /** Records a newly posted version and retires the previous one. */
  async posted(runId: string, message: Posted): Promise<void> {
    const previous = this.latest.get(runId);
    this.latest.set(runId, message);
    if (previous && previous.version < message.version) await this.retire(previous, `:arrows_counterclockwise: Replaced by version ${message.version} below.`);
  }

  /** The run ended undecided (cancelled, expired, a failed replan): `line` says how. */
  async runEnded(runId: string, line: string): Promise<void> {
    const last = this.latest.get(runId);
    this.latest.delete(runId);
    if (last) await this.retire(last, line);
  }

  /**
   * A click counted towards a version that still waits: its message shows the progress now ("1 of 2 approvals")
   * instead of what it showed when posted. Only this process's newest message of that version; after a restart
   * the thread's notice says it.
   */
  async progressChanged(runId: string, version: number, lines: readonly string[]): Promise<void> {
    const posted = this.latest.get(runId);
    const view = posted?.version === version ? posted.redraw?.(lines) : undefined;
    if (!posted || !view) return;
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
