import { AckFirst } from './ack-first.ts';

/** One request's way through the gate, from its arrival to the end of its work after the ack. */
export interface RequestTurn {
  /** The request was acknowledged, refused or dropped; saying it again does nothing. */
  acked(): void;
  /** Resolves when its work after the ack may start. */
  due(): Promise<void>;
  /** Its work is over (or it has none): the same person's next request may go. Saying it again does nothing. */
  done(): void;
}

/**
 * When a request's work after its ack may start. First, after the same person's earlier requests' work,
 * in the order they arrived. A person's two clicks a millisecond apart (a double click, a thumbs up then
 * down) come in one burst; let go together, they ran side by side, and the outcome was whichever write
 * landed first, not the first click's. Then, as for every request, once the burst is acknowledged (AckFirst).
 *
 * A person's request waits for the one before it at most `maxOrderWaitMs`: work stuck on a slow Slack
 * call must not keep that person's next click (a Cancel) from being handled. The store's conditional
 * writes keep each outcome right beyond that; this keeps the one the person meant.
 */
export class RequestTurns {
  private readonly ackFirst: AckFirst;
  /** Each person's latest request's work, until it is over: what their next request waits for. */
  private readonly latest = new Map<string, Promise<void>>();
  private readonly maxOrderWaitMs: number;

  constructor(options: { maxHoldMs?: number; quietMs?: number; maxOrderWaitMs?: number } = {}) {
    this.ackFirst = new AckFirst(options.maxHoldMs, options.quietMs);
    this.maxOrderWaitMs = options.maxOrderWaitMs ?? 2_000;
  }

  /** A request arrived from `person` (its Slack user id; none for a request no person sent, which waits for no one). */
  arrive(person: string | undefined): RequestTurn {
    const acked = this.ackFirst.received();
    const before = person === undefined ? undefined : this.latest.get(person);
    let finish!: () => void;
    const over = new Promise<void>((resolve) => (finish = resolve));
    if (person !== undefined) this.latest.set(person, over);
    const done = () => {
      finish();
      if (person !== undefined && this.latest.get(person) === over) this.latest.delete(person);
    };
    return {
      acked,
      // The person's turn first, then the burst's acks: work let go by the one before it would otherwise
      // start in the middle of a later burst.
      due: async () => {
        if (before) await within(before, this.maxOrderWaitMs);
        await this.ackFirst.othersAcked();
      },
      done,
    };
  }
}

/** The Slack user who sent a request: a click's or a view's `user.id`, a command's `user_id`, an event's `event.user`. */
export function personOf(body: Record<string, unknown>): string | undefined {
  const user = body.user as { id?: unknown } | undefined;
  const event = body.event as { user?: unknown } | undefined;
  const id = user?.id ?? body.user_id ?? event?.user;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
