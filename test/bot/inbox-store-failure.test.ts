/**
 * A request acknowledged (stored in the inbox) whose handling then meets a store failure is not given up.
 * Listeners answer their own errors (a mention that could not start its run says so in the thread), so
 * the receiver cannot tell from the handler's outcome; it sees the store's failures instead. Seen with
 * PGlite's folder read-only: a table growing past its first page needs a new file (its free-space map),
 * the run's INSERT fails, and the mention was marked handled, lost although Slack had its 200.
 * The listener here runs real statements on the real store; the failing one is a store-class error
 * (SQLSTATE 58P01, a file the server cannot open), as the read-only folder gives.
 */
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxReceiver, type InboxContext } from '../../src/bot/ingress/inbox-receiver.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createSlackInbox } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** A receiver that hands what the test sends straight to the wrapped app (as Bolt's HTTP receiver does after the signature check). */
class DirectReceiver implements Receiver {
  app: App | undefined;
  init(app: App): void {
    this.app = app;
  }
  start = async () => undefined;
  stop = async () => undefined;
  send(eventId: string): Promise<void> {
    const body = { type: 'event_callback', event_id: eventId, event: { type: 'app_mention', channel: 'C1', user: 'U1', ts: '1.1', text: 'go' } };
    return this.app!.processEvent({ body, ack: async () => undefined } as ReceiverEvent);
  }
}

describe.each(ENGINES)('a request whose handling meets a store failure, on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(() => database.destroy());

  it('is kept pending and handled again once the store takes writes, then done; one handled without a failure is done at once', async () => {
    const inbox = createSlackInbox(database.db, { owner: 'A', soleOwner: false, health: database.health });
    const inner = new DirectReceiver();
    const receiver = new InboxReceiver(inner, inbox, createLogger({ level: 'silent', secrets: [] }));
    let broken = true;
    const handled: { key: string; replayed: boolean; stored: boolean }[] = [];
    // The listener: its write fails while the store is broken, and it answers its own error (does not throw).
    receiver.init({
      processEvent: async (event: ReceiverEvent) => {
        await event.ack();
        const context = event.customProperties as InboxContext;
        const stored = await database.db
          .execute(broken ? sql`select pg_read_file('/nonexistent/tandem-inbox-test')` : sql`select 1`)
          .then(() => true)
          .catch(() => false);
        handled.push({ key: context.inboxKey!, replayed: context.replayed === true, stored });
      },
    } as unknown as App);

    await inner.send('EvBROKEN');
    expect(handled).toEqual([{ key: 'event:EvBROKEN', replayed: false, stored: false }]);

    // While the store still fails, nothing is handled again.
    await receiver.resumeUnfinished();
    expect(handled).toHaveLength(1);

    broken = false;
    database.health.recovered();
    await receiver.resumeUnfinished();
    expect(handled).toEqual([
      { key: 'event:EvBROKEN', replayed: false, stored: false },
      { key: 'event:EvBROKEN', replayed: true, stored: true },
    ]);

    await inner.send('EvFINE');
    expect(handled.at(-1)).toEqual({ key: 'event:EvFINE', replayed: false, stored: true });
    await receiver.resumeUnfinished();
    expect(handled).toHaveLength(3);
    // Both are marked handled: a process starting on this store finds neither pending.
    const next = createSlackInbox(database.db, { owner: 'Z', soleOwner: true });
    expect((await next.claimUnfinished()).map((entry) => entry.key)).toEqual([]);
  });
});
