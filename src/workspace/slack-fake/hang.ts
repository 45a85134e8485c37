import type { MethodResult } from './params.ts';

/**
 * When a call Slack holds without answering takes effect: `at-once` (Slack acted, only its answer is
 * late: the case a client that gave up must not repeat blindly), `on-release` (Slack works off its queue
 * once it is back, the call included even if its client gave up), or `never` (lost in front of Slack: on
 * release its connection is closed without an answer).
 */
export type HangEffect = 'at-once' | 'on-release' | 'never';

/** One held call, as the server handles it: run it on the workspace model, record it, answer it, or drop it. */
export interface HeldCall {
  act(): MethodResult;
  record(response: MethodResult): void;
  answer(response: MethodResult): void;
  drop(): void;
}

/** A Slack that stops answering: the calls it holds, in the order they came, until it is released. */
export class Hang {
  private readonly held: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly effect: HangEffect,
    releaseAfterMs: number | undefined,
    release: () => void,
  ) {
    if (releaseAfterMs !== undefined) this.timer = setTimeout(release, releaseAfterMs);
  }

  get size(): number {
    return this.held.length;
  }

  /** Acts on the call now or on release (see HangEffect); answers it only on release. */
  hold(call: HeldCall): void {
    if (this.effect === 'never') this.held.push(() => call.drop());
    else if (this.effect === 'on-release')
      this.held.push(() => {
        const response = call.act();
        call.record(response);
        call.answer(response);
      });
    else {
      const response = call.act();
      call.record(response);
      this.held.push(() => call.answer(response));
    }
  }

  /** Slack answers again: every held call is finished in the order it came. */
  finish(): void {
    this.cancel();
    for (const finish of this.held.splice(0)) finish();
  }

  /** The fake stops: the held calls are left unanswered. */
  cancel(): void {
    clearTimeout(this.timer);
  }
}
