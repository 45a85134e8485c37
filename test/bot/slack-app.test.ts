import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackHarness, eventually, SIGNING_SECRET, type SlackHarness } from '../fakes/slack-harness.ts';
import { createMemoryInbox } from '../../src/bot/ports.ts';
import { checkRequesterOrApprover } from '../../src/agent/decisions/approval-policy.ts';
import { approversGate } from '../helpers/policy-gate.ts';

let h: SlackHarness;
beforeEach(async () => {
  h = await startSlackHarness();
});
afterEach(() => h.stop());

describe('HTTP receiver', () => {
  it('answers GET /healthz with 200 {ok:true}', async () => {
    const response = await fetch(`${h.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('refuses a bad signature with 401 and starts nothing', async () => {
    const response = await h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> deploy' }, { signingSecret: 'wrong-secret' });
    expect(response.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.agent.calls).toEqual([]);
    expect(h.fake.calls.filter((c) => c.method.startsWith('chat.'))).toEqual([]);
  });

  it('refuses an unsigned mention however its path is spelled (dot segments, a fragment, an absolute URL, backslashes)', async () => {
    const body = JSON.stringify({
      type: 'event_callback',
      event_id: 'EvPath',
      event: { type: 'app_mention', user: 'U1', channel: 'C1', text: '<@UBOT> deploy', ts: '9.1' },
    });
    const { port } = new URL(h.baseUrl);
    const send = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    const paths = [
      '/slack/events',
      '/slack/./events',
      '/slack/x/../events',
      '/slack/events#x',
      '/slack/events?x=1',
      'http://evil.example/slack/events',
      '\\slack\\events',
    ];
    // 400: Node's HTTP parser refuses the request line itself.
    for (const path of paths) expect([400, 401, 404]).toContain(await send(path));
    expect(await send('/slack/./events')).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.agent.calls).toEqual([]);
  });

  it('refuses a signed body that is not a JSON object with 400, and goes on serving', async () => {
    // Bolt reads fields of a parsed `null` where nothing catches the throw: had it got there, the process would end.
    expect((await h.driver.send('null', 'application/json')).status).toBe(400);
    expect((await h.driver.send('payload=null', 'application/x-www-form-urlencoded')).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> check CI on acme/api' });
    expect((await sent).status).toBe(200);
    await eventually(() => expect(h.agent.callsOf('startRun')).toHaveLength(1));
  });

  it('refuses a stale signature (over 5 minutes old) with 401 and starts nothing', async () => {
    const staleS = Math.floor(Date.now() / 1000) - 6 * 60;
    const response = await h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> deploy' }, { timestampS: staleS, signingSecret: SIGNING_SECRET });
    expect(response.status).toBe(401);
    const click = await h.driver.click(
      { user: 'U1', channel: 'C1', messageTs: '1.1', actionId: 'plan-approve', value: '{"r":"run_1","v":1}' },
      { timestampS: staleS },
    );
    expect(click.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.agent.calls).toEqual([]);
  });
});

describe('mentions', () => {
  it("start one run in the mention's thread with the mention stripped from the task", async () => {
    const sent = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> check CI on acme/api' });
    expect((await sent).status).toBe(200);
    await eventually(() =>
      expect(h.agent.callsOf('startRun')).toEqual([
        {
          task: 'check CI on acme/api',
          requester: 'U1',
          conversation: { channel: 'C1', threadTs: sent.ts },
          origin: 'mention',
          requestId: `event:${sent.eventId}`,
        },
      ]),
    );
  });

  it('start one run when Slack delivers the same event twice', async () => {
    const first = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> release v1' });
    await first;
    const again = await h.driver.event(
      { type: 'app_mention', user: 'U1', text: '<@UBOT> release v1', ts: first.ts, channel: 'C1', event_ts: first.ts },
      { eventId: first.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await eventually(() => expect(h.agent.callsOf('startRun')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.agent.callsOf('startRun')).toHaveLength(1);
  });

  it("inside a run's thread are follow-ups, not new runs, carrying the request's id (a replay of it answers nothing twice)", async () => {
    h.agent.answers.followUp = async () => 'answered';
    const sent = h.driver.mention({ channel: 'C1', user: 'U2', text: '<@UBOT> use the staging cluster', threadTs: '1700000000.000100' });
    await sent;
    await eventually(() =>
      expect(h.agent.callsOf('followUp')).toEqual([
        {
          conversation: { channel: 'C1', threadTs: '1700000000.000100' },
          userId: 'U2',
          text: 'use the staging cluster',
          requestId: `event:${sent.eventId}`,
        },
      ]),
    );
    expect(h.agent.callsOf('startRun')).toEqual([]);
  });

  it('a follow-up that had already answered (replayed after a crash) says nothing again', async () => {
    h.agent.answers.followUp = async () => 'already-answered';
    await h.driver.mention({ channel: 'C1', user: 'U2', text: '<@UBOT> use the staging cluster', threadTs: '1700000000.000100' });
    await eventually(() => expect(h.agent.callsOf('followUp')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.fake.calls.filter((c) => c.method.startsWith('chat.'))).toEqual([]);
    expect(h.agent.callsOf('startRun')).toEqual([]);
  });

  it("inside a run's thread that waits for nothing get a private note and start nothing", async () => {
    h.agent.answers.followUp = async () => 'ignored';
    await h.driver.mention({ channel: 'C1', user: 'U2', text: '<@UBOT> hello?', threadTs: '1700000000.000100' });
    await eventually(() => expect(h.fake.model.ephemeralsFor('U2').map((m) => m.text)).toEqual([expect.stringContaining('waiting for an answer')]));
    expect(h.agent.callsOf('startRun')).toEqual([]);
  });

  it('from someone who is neither the requester nor an approver are refused privately, saying who may', async () => {
    // The agent answers with the approval policy's own refusal for a bystander.
    const refusalFor = async (action: 'answer' | 'cancel') => {
      const run = { id: 'run_1', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1700000000.000100' } };
      const may = await checkRequesterOrApprover({ action, userId: 'U9', policy: { gate: approversGate(['UAPP']), run } });
      if (may.ok) throw new Error('a bystander may not answer or cancel');
      return { refused: may.error };
    };
    h.agent.answers.followUp = () => refusalFor('answer');
    await h.driver.mention({ channel: 'C1', user: 'U9', text: '<@UBOT> 666', threadTs: '1700000000.000100' });
    await eventually(() =>
      expect(h.fake.model.ephemeralsFor('U9').map((m) => m.text)).toEqual([
        "Only <@UREQ> (who asked) or an approver may answer this run's question. Your message changed nothing.",
      ]),
    );
    h.agent.answers.followUp = () => refusalFor('cancel');
    await h.driver.mention({ channel: 'C1', user: 'U9', text: '<@UBOT> cancel', threadTs: '1700000000.000100' });
    await eventually(() =>
      expect(h.fake.model.ephemeralsFor('U9').at(-1)?.text).toBe('Only <@UREQ> (who asked) or an approver may cancel this run. Your message changed nothing.'),
    );
    expect(h.agent.callsOf('startRun')).toEqual([]);
  });

  it('inside a thread with no run start a run there', async () => {
    await h.driver.mention({ channel: 'C1', user: 'U2', text: '<@UBOT> look at this', threadTs: '1700000000.000200' });
    await eventually(() => expect(h.agent.callsOf('startRun')).toMatchObject([{ conversation: { channel: 'C1', threadTs: '1700000000.000200' } }]));
  });

  it('tell the person in the thread when the run cannot start', async () => {
    h.agent.answers.startRun = async () => {
      throw new Error('database is down');
    };
    const sent = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> deploy' });
    await sent;
    await eventually(() =>
      expect(
        h.fake.model
          .thread('C1', sent.ts)
          .map((m) => m.text)
          .join('\n'),
      ).toMatch(/could not start on that: database is down/),
    );
  });

  it('with no task answer with help', async () => {
    const sent = h.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT>' });
    await sent;
    await eventually(() => expect(h.fake.model.thread('C1', sent.ts).some((m) => m.text.includes('/tandem help'))).toBe(true));
    expect(h.agent.callsOf('startRun')).toEqual([]);
  });
});

describe('a request that cannot be stored', () => {
  it('is not acknowledged, so Slack delivers it again, and nothing runs', async () => {
    const broken = await startSlackHarness({
      inbox: {
        ...createMemoryInbox(),
        record: async () => {
          throw new Error('inbox unavailable');
        },
      },
    });
    try {
      const answer = await broken.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> deploy' });
      expect(answer.status).toBeGreaterThanOrEqual(500);
      expect(broken.agent.calls).toEqual([]);
    } finally {
      await broken.stop();
    }
  });
});

describe('a burst of requests', () => {
  it("acknowledges first: a request's work waits while another received with it is still being stored, but not for ever", async () => {
    let release!: () => void;
    let storing!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowIsBeingStored = new Promise<void>((resolve) => (storing = resolve));
    const memory = createMemoryInbox();
    const burst = await startSlackHarness({
      inbox: {
        ...memory,
        record: async (entry) => {
          if (JSON.stringify(entry.body).includes('USLOW')) {
            storing();
            await held;
          }
          return memory.record(entry);
        },
      },
    });
    try {
      const slow = burst.driver.mention({ channel: 'C1', user: 'USLOW', text: '<@UBOT> second' });
      await slowIsBeingStored;
      const fast = await burst.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> first' });
      expect(fast.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(burst.agent.callsOf('startRun')).toEqual([]);
      // The wait is bounded: a request that is slow to store delays others' work by at most a moment.
      await eventually(() => expect(burst.agent.callsOf('startRun')).toEqual([expect.objectContaining({ requester: 'U1' })]), 2000);
      release();
      expect((await slow).status).toBe(200);
      await eventually(() => expect(burst.agent.callsOf('startRun')).toHaveLength(2));
    } finally {
      release();
      await burst.stop();
    }
  });
});

describe('a click', () => {
  it('is acknowledged once stored, before any listener runs: a button no listener knows (from an older version) gets its 200 at once', async () => {
    const memory = createMemoryInbox();
    const stored: string[] = [];
    const clicks = await startSlackHarness({ inbox: { ...memory, record: async (entry) => (stored.push(entry.key), memory.record(entry)) } });
    try {
      const started = performance.now();
      const answer = await clicks.driver.click({ user: 'U1', channel: 'C1', messageTs: '1700000000.000200', actionId: 'retired_button_v0', value: 'x' });
      expect(answer.status).toBe(200);
      // Bolt answers a request no listener acknowledges only after about three seconds, which Slack shows as an error.
      expect(performance.now() - started).toBeLessThan(2000);
      expect(stored).toEqual([expect.stringMatching(/^action:/)]);
      expect(clicks.agent.calls).toEqual([]);
    } finally {
      await clicks.stop();
    }
  });
});
