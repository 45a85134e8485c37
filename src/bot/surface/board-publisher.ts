import type { WaitLinks } from './wait-links.ts';
import type { Logger } from '../../observability/logger.ts';
import type { BoardState } from '../../agent/ports/surface.ts';
import type { Conversation } from '../../agent/ports/run-store.ts';
import { describeError } from './replies.ts';
import { findOwedInThread, postFindable, type PostSettle } from './owed-messages.ts';
import { isPostOutcomeUnknown, slackErrorCode, type SlackClient } from './slack-client.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';
import { planBoard } from '../views/run/plan-board.ts';
import { statusBoard } from '../views/run/status-board.ts';

/**
 * `plan`: Slack's native plan block; `sections`: section blocks; `auto`: the plan block until Slack
 * refuses one, then sections for good (the workspace cannot show it).
 */
export type BoardStyle = 'auto' | 'plan' | 'sections';

interface RunBoard {
  conversation: Conversation;
  /** The board message, once posted (or known from the store after a restart). */
  ts: string | undefined;
  /**
   * The board may be in the thread without its ts known here: posted by a process that died before the
   * store kept the ts, or by a post whose answer Slack never sent back. It is looked for by its key first.
   */
  mayExist: boolean;
  latest: BoardState;
  dirty: boolean;
  /** When the last send's answer came back (while one is on its way, when it left). */
  lastSentAt: number;
  timer: NodeJS.Timeout | undefined;
  inFlight: Promise<void> | undefined;
  failures: number;
  settled: (() => void)[];
}

export interface BoardPublisherOptions {
  client: SlackClient;
  logger: Logger;
  /** At most one edit per run per interval (Slack's chat.update limits; the contract says 1 s). */
  intervalMs?: number;
  /** Called once the board message exists, so the store can keep its ts as the run's boardRef. */
  onBoardPosted?: (runId: string, ts: string) => Promise<void>;
  /** First wait after a send the client gave up on (default 1 s); doubles per failure up to 30 times it. */
  retryBaseMs?: number;
  /** TANDEM_ESCALATE_TO: a board paused by an escalation says it waits for them. */
  escalateTo?: string | undefined;
  /** TANDEM_BOARD_STYLE; default auto. */
  style?: BoardStyle;
  /** The messages waiting steps wait on: each such step's card links to its message. */
  waitLinks?: WaitLinks;
  /** How long a first post Slack did not answer is looked for in the thread before it counts as not posted. */
  postSettle?: PostSettle;
}

/**
 * Keeps one status-board message per run current. States arriving faster than the interval are
 * coalesced: only the newest is sent. A failed send (429s beyond the client's retries, a network
 * error) is retried later with whatever state is newest then, so the board always ends true.
 */
export class BoardPublisher {
  private readonly boards = new Map<string, RunBoard>();
  /** Board messages of recently finished runs, so a late report edits the board instead of posting a second one. */
  private readonly finishedTs = new Map<string, string>();
  private readonly intervalMs: number;
  /** Counts for the bench and tests: states reported vs. messages posted or edited. */
  readonly stats = { states: 0, sends: 0 };
  /** Slack refused a plan block here (one bot token is one workspace); auto mode draws sections from then on. */
  private planRefused = false;

  constructor(private readonly options: BoardPublisherOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
  }

  report(conversation: Conversation, boardRef: string | null, board: BoardState): void {
    this.stats.states += 1;
    let entry = this.boards.get(board.runId);
    if (!entry) {
      entry = {
        conversation,
        ts: boardRef ?? this.finishedTs.get(board.runId),
        // A process that died between posting the board and storing its ts left it in the thread unknown to the store.
        mayExist: true,
        latest: board,
        dirty: true,
        lastSentAt: 0,
        timer: undefined,
        inFlight: undefined,
        failures: 0,
        settled: [],
      };
      this.boards.set(board.runId, entry);
    }
    entry.latest = board;
    entry.dirty = true;
    this.schedule(board.runId, entry);
  }

  /** Resolves once the newest reported state of the run is on Slack (or there is nothing to send). */
  settle(runId: string): Promise<void> {
    const entry = this.boards.get(runId);
    if (!entry || (!entry.dirty && !entry.inFlight)) return Promise.resolve();
    return new Promise((resolve) => entry.settled.push(resolve));
  }

  /**
   * Resolves once the run's board is on Slack, when a state of it was reported and none posted yet (at most
   * `deadlineMs`, so a Slack that refuses the board does not hold the thread up): a message posted after it
   * then reads below the board, as a run's thread should (board first, then what the run asks or tells).
   */
  async firstPosted(runId: string, deadlineMs = 5_000): Promise<void> {
    const entry = this.boards.get(runId);
    if (!entry || entry.ts) return;
    await this.settleWithin(runId, deadlineMs);
  }

  /**
   * Forget a finished run once its board is final. Waits at most `deadlineMs` so the summary is not
   * held up for long by a Slack that keeps refusing; the board keeps retrying in the background.
   */
  async finish(runId: string, deadlineMs = 20_000): Promise<void> {
    this.sendNow(runId);
    await this.settleWithin(runId, deadlineMs);
    const ts = this.boards.get(runId)?.ts;
    this.boards.delete(runId);
    if (!ts) return;
    this.finishedTs.set(runId, ts);
    if (this.finishedTs.size > 1000) this.finishedTs.delete(this.finishedTs.keys().next().value!);
  }

  /**
   * A state waiting out its backoff after failed sends goes now: the run's summary is about to follow it,
   * and Slack may be back (a summary's delivery is tried again every few seconds; a board's backoff reaches 30 s).
   */
  private sendNow(runId: string): void {
    const entry = this.boards.get(runId);
    if (!entry?.timer || entry.failures === 0) return;
    clearTimeout(entry.timer);
    this.flush(runId, entry);
  }

  /** `settle`, waiting at most `deadlineMs`. */
  private async settleWithin(runId: string, deadlineMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(runId), new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)))]);
    clearTimeout(timer);
  }

  private schedule(runId: string, entry: RunBoard, extraDelayMs = 0): void {
    if (entry.timer || entry.inFlight || !entry.dirty) return;
    const wait = Math.max(0, entry.lastSentAt + this.intervalMs - Date.now(), extraDelayMs);
    entry.timer = setTimeout(() => this.flush(runId, entry), wait);
  }

  private flush(runId: string, entry: RunBoard): void {
    entry.timer = undefined;
    if (!entry.dirty) return;
    entry.dirty = false;
    const state = entry.latest;
    entry.lastSentAt = Date.now();
    entry.inFlight = this.send(runId, entry, state).then(
      () => {
        entry.failures = 0;
      },
      (error: unknown) => {
        entry.failures += 1;
        const verdict = retryVerdict(error, entry.failures);
        if (verdict === 'repost') entry.ts = undefined; // someone deleted the board: post it again
        // Resend only if nothing newer arrived meanwhile (a newer state is already queued) and it can help.
        if (entry.latest === state && verdict !== 'give-up') entry.dirty = true;
        const log = { err: describeError(error), runId, failures: entry.failures };
        if (verdict === 'give-up') this.options.logger.error(log, 'status board update failed; giving up on this state');
        else this.options.logger.warn(log, 'status board update failed; will retry');
      },
    );
    void entry.inFlight.finally(() => {
      entry.inFlight = undefined;
      // Counted from the answer, not the request: the next edit then reaches Slack at least an interval
      // after this one did, however long this one took on the way.
      entry.lastSentAt = Date.now();
      if (entry.dirty) {
        const base = this.options.retryBaseMs ?? 1000;
        const backoff = entry.failures > 0 ? Math.min(30 * base, base * 2 ** (entry.failures - 1)) : 0;
        this.schedule(runId, entry, backoff);
      } else {
        for (const resolve of entry.settled.splice(0)) resolve();
      }
    });
  }

  private async send(runId: string, entry: RunBoard, state: BoardState): Promise<void> {
    this.stats.sends += 1;
    const style = this.options.style ?? 'auto';
    const links = await this.options.waitLinks?.forBoard(runId, state);
    const drawing = { escalateTo: this.options.escalateTo, ...links };
    const plan = style === 'sections' || (style === 'auto' && this.planRefused) ? undefined : planBoard(state, drawing);
    if (!plan) return this.sendView(runId, entry, statusBoard(state, drawing));
    try {
      await this.sendView(runId, entry, plan);
    } catch (error) {
      if (!REFUSED_BLOCKS.has(slackErrorCode(error) ?? '')) throw error;
      // The same state goes out at once as sections: nobody in the thread sees the refusal.
      if (!this.planRefused)
        this.options.logger.warn({ err: describeError(error), runId, style }, 'Slack refused the plan block; drawing status boards with sections');
      this.planRefused = true;
      await this.sendView(runId, entry, statusBoard(state, drawing));
    }
  }

  private async sendView(runId: string, entry: RunBoard, view: MessageView): Promise<void> {
    const { client } = this.options;
    if (!entry.ts && entry.mayExist) {
      const found = await findOwedInThread(client, entry.conversation, boardKey(runId)).catch((error: unknown) => {
        // A thread the bot cannot read (a missing scope) must not cost the run its board: post it.
        if (!PERMANENT.has(slackErrorCode(error) ?? '')) throw error;
        this.options.logger.warn({ err: describeError(error), runId }, 'could not look for an earlier board in the thread; posting one');
        return undefined;
      });
      entry.mayExist = false;
      if (found) await this.posted(runId, entry, found);
    }
    if (entry.ts) {
      await client.chat.update({ channel: entry.conversation.channel, ts: entry.ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
      return;
    }
    let ts: string | undefined;
    try {
      // The key in its metadata lets the next process (or the next try) find this board instead of posting another.
      ts = await postFindable(client, entry.conversation, boardKey(runId), view, this.options.postSettle);
    } catch (error) {
      // Not in the thread yet, but a slow Slack may still post it: look again before the next post.
      if (isPostOutcomeUnknown(error)) entry.mayExist = true;
      throw error;
    }
    if (ts) await this.posted(runId, entry, ts);
  }

  /** The board message exists (posted now, or found in the thread): edits go to it, and the store keeps it. */
  private async posted(runId: string, entry: RunBoard, ts: string): Promise<void> {
    entry.ts = ts;
    if (!this.options.onBoardPosted) return;
    await this.options
      .onBoardPosted(runId, ts)
      .catch((error: unknown) => this.options.logger.warn({ err: describeError(error), runId }, 'could not store the board reference'));
  }
}

/** The metadata key of a run's board message. */
export const boardKey = (runId: string): string => `${runId}/board`;

const MAX_FAILURES = 8;
/** Errors where trying again cannot help: the request itself is wrong or the bot may not post there. */
const PERMANENT = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'no_text',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'missing_scope',
  'cant_update_message',
  'edit_window_closed',
]);

/** What Slack answers for a block type it does not take in this workspace or on this method. */
const REFUSED_BLOCKS = new Set(['invalid_blocks', 'invalid_blocks_format', 'unsupported_block_type']);

/** Slack's own words for being down or busy: like no answer at all, they pass. */
const OUTAGE = new Set(['service_unavailable', 'internal_error', 'fatal_error', 'request_timeout', 'ratelimited']);

/**
 * A Slack that is down (no answer, a timeout, a 5xx, an outage code) is waited out however long it
 * lasts: the board's final state must land. An error Slack answered with is tried MAX_FAILURES times.
 */
function retryVerdict(error: unknown, failures: number): 'retry' | 'repost' | 'give-up' {
  const code = slackErrorCode(error);
  if (code === 'message_not_found') return 'repost';
  if (code && PERMANENT.has(code)) return 'give-up';
  if (!code || OUTAGE.has(code)) return 'retry';
  return failures >= MAX_FAILURES ? 'give-up' : 'retry';
}
