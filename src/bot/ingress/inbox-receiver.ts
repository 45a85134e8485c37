import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../../observability/logger.ts';
import { inboxKey, storableBody } from './inbox-key.ts';
import type { SlackInbox } from '../ports.ts';
import { describeError } from '../surface/replies.ts';
import type { AnsweringInbox, Retry } from './ingress-ack.ts';
import { personOf, RequestTurns } from './request-turns.ts';

/**
 * A store that does not answer (a cut connection, a failover) must not keep Slack waiting past its 3 s:
 * the request is answered with a 5xx before then (Bolt's own timer answers 404 at 3 s), so Slack retries it.
 * If the write lands after all, the retry finds it stored and handles it (`late`), or on another replica
 * the inbox pass does once its lease runs out.
 */
const RECORD_DEADLINE_MS = 2_500;

class InboxUnavailableError extends Error {
  override readonly name = 'InboxUnavailableError';
  readonly code = 'STORE_TIMEOUT';
  constructor() {
    super(`the Slack request could not be stored within ${RECORD_DEADLINE_MS} ms; answered with an error so Slack retries it`);
  }
}

function withinAckDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new InboxUnavailableError()), RECORD_DEADLINE_MS)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Requests whose ack Slack reads nothing from: a click, and an Events API event. Bolt acks an event itself
 * before its listeners, except `function_executed`, whose listener acks it (Slack functions, not used here).
 * A modal submission's ack carries field errors and a command's may carry a reply: their listeners ack them.
 */
function ackCarriesNothing(body: Record<string, unknown>): boolean {
  if (body.type === 'block_actions') return true;
  return body.type === 'event_callback' && (body.event as { type?: unknown } | undefined)?.type !== 'function_executed';
}

/** The ack of a request acknowledged already (stored and answered, or handled again after a crash): it does nothing. */
const noAck: ReceiverEvent['ack'] = async () => undefined;

/** A stored request handled again: already acknowledged, so its ack does nothing. */
function replayedEvent(key: string, body: Record<string, unknown>): ReceiverEvent {
  return { body, ack: noAck, customProperties: { inboxKey: key, replayed: true } };
}

/** Set in the listener context: the inbox key of the request being handled, and whether it is handled again after a crash. */
export interface InboxContext {
  inboxKey?: string;
  replayed?: boolean;
  /**
   * True once the store failed while this request was being handled: it is then handled again when the store
   * takes writes, and that handling answers, so a listener need not tell the person to try again.
   */
  handledAgainLater?: () => boolean;
}

/**
 * Wraps Bolt's receiver (HTTP or Socket Mode) so that every request is stored in the inbox before
 * Bolt can acknowledge it: Bolt acks events itself before any middleware runs, so the only place
 * ahead of every ack is between the receiver and the app. A redelivered request is acknowledged and
 * dropped. Once the listeners are done the request is marked handled; one left pending by a crash is
 * handled again by `resumeUnfinished`. Under a burst the acks come first: what a listener does after
 * `await ack()` starts once the requests received so far are acknowledged too, and after the same person's
 * earlier requests' work (RequestTurns). Over HTTP a click or an event does not pass through Bolt's receiver
 * at all: the ingress hands it to `receiveAnswered`.
 */
export class InboxReceiver implements Receiver, AnsweringInbox {
  private app: App | undefined;
  private readonly turns = new RequestTurns();
  /** Requests refused because their inbox write outlived the ack deadline (it may have landed since). */
  private readonly late = new Set<string>();
  /** Requests whose handling met a store failure, with their bodies: handled again once the store takes writes. */
  private readonly kept = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly inner: Receiver,
    private readonly inbox: SlackInbox,
    private readonly logger: Logger,
  ) {}

  init(app: App): void {
    this.app = app;
    this.inner.init({ processEvent: (event: ReceiverEvent) => this.receive(event) } as unknown as App);
  }

  start(...args: unknown[]): Promise<unknown> {
    return this.inner.start(...args);
  }

  stop(...args: unknown[]): Promise<unknown> {
    return this.inner.stop(...args);
  }

  /** Handles the requests a stopped process (or a dead peer) acknowledged but did not finish; returns how many. */
  async resumeUnfinished(): Promise<number> {
    const kept = await this.takeBackKept();
    const entries = await this.inbox.claimUnfinished();
    for (const entry of entries) {
      // Kept past its lease (the store failed for longer), it came back this way: handled here, not twice.
      this.kept.delete(entry.key);
      this.logger.info({ inboxKey: entry.key }, 'handling a Slack request acknowledged before a restart');
      await this.handle(entry.key, replayedEvent(entry.key, entry.body));
    }
    return kept + entries.length;
  }

  /** Handles again, once the store takes writes, the requests kept pending because it failed while they were handled. */
  private async takeBackKept(): Promise<number> {
    if (this.kept.size === 0 || !this.inbox.storeFailures().writable) return 0;
    const kept = new Map(this.kept);
    const held = new Set(await this.inbox.reclaim([...kept.keys()]));
    // Not held: handled meanwhile, or a peer took it over once its lease ran out.
    for (const key of kept.keys()) this.kept.delete(key);
    for (const [key, body] of kept) {
      if (!held.has(key)) continue;
      this.logger.info({ inboxKey: key }, 'handling again a Slack request whose handling met a store failure');
      await this.handle(key, replayedEvent(key, body));
    }
    return held.size;
  }

  private async receive(event: ReceiverEvent): Promise<void> {
    const turn = this.turns.arrive(personOf(event.body));
    const ack: ReceiverEvent['ack'] = async (response) => {
      try {
        await event.ack(response);
      } finally {
        turn.acked();
      }
      await turn.due();
    };
    try {
      await this.store({ ...event, ack });
    } finally {
      turn.acked();
      turn.done();
    }
  }

  private async store(event: ReceiverEvent): Promise<void> {
    const key = inboxKey(event.body);
    if (!key) return this.app!.processEvent(event);
    if (!(await this.stored(key, event.body))) {
      this.logger.debug({ inboxKey: key, retryNum: event.retryNum }, 'Slack request delivered again; acknowledged and dropped');
      await event.ack();
      return;
    }
    // A click's or an event's ack carries nothing Slack reads, so once it is stored it is acknowledged here,
    // before Bolt authorises it and runs its middleware and listener matching (the ack then waits for nothing
    // but the store); the listener's own ack(), or Bolt's for an event, is then a no-op. Over HTTP the ingress
    // answers these before Bolt's receiver sees them (receiveAnswered); this is Socket Mode's path.
    const ackedHere = ackCarriesNothing(event.body);
    if (ackedHere) await event.ack();
    await this.handle(key, { ...event, ...(ackedHere ? { ack: noAck } : {}), customProperties: { ...event.customProperties, inboxKey: key } });
  }

  /** The inbox key of a request the HTTP ingress may answer itself once it is stored: a click or an event (ingress-ack.ts). */
  answerableKey(body: Record<string, unknown>): string | undefined {
    return ackCarriesNothing(body) ? inboxKey(body) : undefined;
  }

  /**
   * A click or an event from the HTTP ingress: stored, answered, then handled once the burst it came in is
   * acknowledged. Refused with a 500 (so Slack sends it again) when it cannot be stored in time; a redelivery
   * of one stored already is answered and dropped. Only the key and the body are held until it is handled.
   */
  async receiveAnswered(key: string, body: Record<string, unknown>, retry: Retry, answer: (status: 200 | 500) => void): Promise<void> {
    const turn = this.turns.arrive(personOf(body));
    try {
      let fresh: boolean;
      try {
        fresh = await this.stored(key, body);
      } catch (error) {
        this.logger.error({ err: describeError(error), inboxKey: key }, 'a Slack request could not be stored; answered 500 so Slack sends it again');
        answer(500);
        return turn.acked();
      }
      answer(200);
      turn.acked();
      if (!fresh) return this.logger.debug({ inboxKey: key, retryNum: retry.retryNum }, 'Slack request delivered again; acknowledged and dropped');
      await turn.due();
      await this.handle(key, { body, ack: noAck, ...retry, customProperties: { inboxKey: key } });
    } finally {
      turn.done();
    }
  }

  /**
   * The one write before a request's ack; says whether the request is to be handled (not when it was stored
   * already). Throws when it could not be stored (InboxUnavailableError: not within the deadline), and then it
   * is not acknowledged: Slack retries events, and a person whose click failed sees Slack's error instead of a
   * click that silently did nothing.
   */
  private async stored(key: string, body: Record<string, unknown>): Promise<boolean> {
    let fresh: boolean;
    try {
      fresh = await withinAckDeadline(this.inbox.record({ key, body: storableBody(body) }));
    } catch (error) {
      if (error instanceof InboxUnavailableError) this.rememberLate(key);
      throw error;
    }
    // Refused because its write outlived the deadline, the request may be stored after all: Slack's
    // retry (here, to this process) handles it now instead of after its lease runs out.
    const late = this.late.delete(key);
    return fresh || late;
  }

  private rememberLate(key: string): void {
    this.late.add(key);
    // Bounded: the oldest is forgotten first (the periodic inbox pass still handles it).
    if (this.late.size > 1000) this.late.delete(this.late.values().next().value!);
  }

  private async handle(key: string, event: ReceiverEvent): Promise<void> {
    const keepLease = setInterval(() => void this.inbox.extend(key).catch(() => undefined), this.inbox.leaseMs / 3);
    keepLease.unref();
    const failuresBefore = this.inbox.storeFailures().seen;
    const handledAgainLater = () => this.inbox.storeFailures().seen !== failuresBefore;
    try {
      await this.app!.processEvent({ ...event, customProperties: { ...event.customProperties, handledAgainLater } });
    } finally {
      clearInterval(keepLease);
      // The store failed meanwhile (this handler's writes, or another's: a listener answers its own errors, so
      // which is not known): what the request asked for may not be stored. It was acknowledged, so it is not
      // given up but kept pending and handled again once the store takes writes; handling twice is safe, as
      // after a crash.
      if (handledAgainLater()) this.keep(key, storableBody(event.body));
      // Otherwise a handler that failed is done too: its error was answered, and a request that keeps failing must not loop.
      else
        await this.inbox
          .done(key)
          .catch((error: unknown) => this.logger.warn({ err: describeError(error), inboxKey: key }, 'could not mark a Slack request handled'));
    }
  }

  private keep(key: string, body: Record<string, unknown>): void {
    this.logger.warn({ inboxKey: key }, 'the store failed while a Slack request was handled; it is handled again once the store takes writes');
    this.kept.set(key, body);
    // Bounded: one forgotten here stays pending in the store, and the inbox pass takes it once its lease runs out.
    if (this.kept.size > 1000) this.kept.delete(this.kept.keys().next().value!);
  }
}
