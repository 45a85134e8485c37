import fc from 'fast-check';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { personOf, RequestTurns, type RequestTurn } from '../../src/bot/ingress/request-turns.ts';

/** What happens to the requests, one step per turn of the event loop, as I/O would bring it. */
type Step = { arrive: string | null } | { ack: number } | { finish: number } | 'turn';

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ arrive: fc.constantFrom('U1', 'U2', 'U3', null) }),
  fc.record({ ack: fc.nat() }),
  fc.record({ finish: fc.nat() }),
  fc.constant('turn' as const),
);

interface Request {
  person: string | null;
  turn: RequestTurn;
  acked: boolean;
  started: boolean;
  finished: boolean;
}

/**
 * Plays the steps against the gate as the inbox receiver uses it (a request's work waits for `due()` after
 * its ack and says `done()` when over), then acknowledges and finishes everything left. Returns what went wrong.
 */
async function play(steps: Step[]): Promise<string[]> {
  const turns = new RequestTurns({ maxHoldMs: 60_000, quietMs: 0, maxOrderWaitMs: 60_000 });
  const requests: Request[] = [];
  const wrong: string[] = [];
  const start = (index: number) => {
    const request = requests[index]!;
    request.started = true;
    if (requests.some((other) => !other.acked)) wrong.push(`request ${index}'s work started before every request received was acknowledged`);
    const earlier = requests.slice(0, index).filter((other) => other.person !== null && other.person === request.person);
    if (earlier.some((other) => !other.finished)) wrong.push(`request ${index}'s work started before its person's earlier request's work was over`);
  };
  const ack = (request: Request, index: number) => {
    request.acked = true;
    request.turn.acked();
    void request.turn.due().then(() => start(index));
  };
  const finish = (request: Request) => {
    request.finished = true;
    request.turn.done();
  };
  for (const next of steps) {
    await nextTurn();
    if (next === 'turn') continue;
    if ('arrive' in next) {
      requests.push({ person: next.arrive, turn: turns.arrive(next.arrive ?? undefined), acked: false, started: false, finished: false });
      continue;
    }
    const pending = requests.filter((request) => ('ack' in next ? !request.acked : request.started && !request.finished));
    const chosen = pending[('ack' in next ? next.ack : next.finish) % Math.max(1, pending.length)];
    if (!chosen) continue;
    if ('ack' in next) ack(chosen, requests.indexOf(chosen));
    else finish(chosen);
  }
  requests.forEach((request, index) => request.acked || ack(request, index));
  // Everything is acknowledged: each request's work starts once its person's earlier work is over.
  for (let waited = 0; requests.some((request) => !request.finished) && waited < 10_000; waited += 1) {
    await nextTurn();
    requests.filter((request) => request.started && !request.finished).forEach(finish);
  }
  requests.forEach((request, index) => request.started || wrong.push(`request ${index}'s work never started`));
  return wrong;
}

describe('RequestTurns', () => {
  it("starts every request's work, none before every request received is acknowledged, and a person's one at a time in the order they arrived", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        expect(await play(steps)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("lets a person's next request go when the one before it is stuck past the limit, and does not hold other people's", async () => {
    const turns = new RequestTurns({ maxHoldMs: 60_000, quietMs: 0, maxOrderWaitMs: 300 });
    const started: string[] = [];
    const [stuck, next, other] = (['stuck', 'next', 'other'] as const).map((name) => {
      const turn = turns.arrive(name === 'other' ? 'U2' : 'U1');
      turn.acked();
      return turn.due().then(() => started.push(name));
    });
    await Promise.all([stuck, other]);
    expect(started).toEqual(['stuck', 'other']);
    await next; // the stuck one never said it was done
    expect(started).toEqual(['stuck', 'other', 'next']);
  });

  it('knows who sent a click, a view submission, a command and an event, and that nobody sent a request without a user', () => {
    expect(personOf({ type: 'block_actions', user: { id: 'U1' } })).toBe('U1');
    expect(personOf({ type: 'view_submission', user: { id: 'U2' } })).toBe('U2');
    expect(personOf({ command: '/tandem', user_id: 'U3' })).toBe('U3');
    expect(personOf({ type: 'event_callback', event: { type: 'app_mention', user: 'U4' } })).toBe('U4');
    expect(personOf({ type: 'event_callback', event: { type: 'message', bot_id: 'B1' } })).toBeUndefined();
  });
});
