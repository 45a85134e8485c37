/**
 * Slack's Web API stops answering while a run owes its thread messages (CONTRACT §6: an outage of Slack
 * delays what depends on it and never loses an owed message). Slack hangs three times, each far longer
 * than the client waits for an answer (shortened here, with the other Slack timings, so minutes of hanging
 * take seconds), and each time in another way: it acts at once and answers late, it acts only once it is
 * back, or the calls are lost in front of it. A question, an escalation and the summary fall due during
 * those hangs. Once Slack answers again each arrives once, in order, the board ends right, the store's
 * health never wavers and the metrics show the timeouts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import type { FakeMessage, HangEffect } from '../../src/workspace/slack-fake/index.ts';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { health, metricsText, startOutageStack, summarised, type OutageStack } from './outage-stack.ts';

const TASK = '<@UBOT> drill with a question';
/** The client gives up on a call after this; a hang lasts many times as long. */
const TIMEOUT_MS = 200;
const HANG_MS = 4_000;

/** Each message a run owes carries its key in its metadata (so a lost answer does not cost a second copy): `<run>/board`, `<run>/question/<id>`… */
const keyed = (pattern: RegExp) => (m: FakeMessage) => pattern.test(String(m.metadata?.event_payload.key ?? ''));
const isBoard = keyed(/\/board$/);
const isQuestion = keyed(/\/question\//);
const isEscalation = keyed(/\/escalation\//);
const isSummary = keyed(/\/run-finished$/);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Slack stops answering for a long while', () => {
  let database: TestDatabase | undefined;
  let stack: OutageStack;
  const healthSeen: number[] = [];
  let watching: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    stack = await startOutageStack(
      database ? { DATABASE_URL: database.url! } : 'pglite',
      {},
      { requestTimeoutMs: TIMEOUT_MS, postSettle: { settleMs: 600, pollMs: 100 }, boardRetryBaseMs: 200 },
    );
    // /healthz is about the store: Slack hanging must not make an orchestrator pull the replica.
    watching = setInterval(() => void health(stack.baseUrl).then((answer) => healthSeen.push(answer.status)), 250);
  }, 60_000);

  afterAll(async () => {
    clearInterval(watching);
    stack?.slack.release();
    await stack?.close();
    await database?.destroy();
  });

  /**
   * Slack hangs (in the given way) while `owe` makes the run owe a message, for HANG_MS after the bot's
   * calls start piling up; `beforeRelease` then checks the thread as it stands, and Slack answers again.
   */
  async function hangWhile(effect: HangEffect, owe: () => Promise<unknown>, beforeRelease: () => void): Promise<void> {
    stack.slack.hang({ effect });
    await owe();
    for (let waited = 0; stack.slack.heldCalls < 3; waited += 50) {
      if (waited > 20_000) throw new Error('the hanging Slack was not called');
      await sleep(50);
    }
    // Long enough for the client to give up on the owed message's calls many times over.
    await sleep(HANG_MS);
    beforeRelease();
    stack.slack.release();
  }

  it('delivers the question, the escalation and the summary once each, in order, with the board right', async () => {
    const issuesBefore = stack.issues();
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    await stack.slack.waitUntil(() => stack.thread(mention.ts).some(isBoard), 20_000, 'the board');
    const thread = () => stack.thread(mention.ts);

    // 1. Slack acts on each call at once but answers none: the question may land while the bot hears nothing.
    await hangWhile(
      'at-once',
      () => Promise.resolve(),
      () => expect(thread().filter(isQuestion)).toHaveLength(1), // posted by Slack, though the bot never heard so
    );
    await stack.slack.waitUntil(() => thread().some(isQuestion), 30_000, 'the question once Slack answers');

    // 2. GitHub fails the write, so the answer leads to an escalation, owed while Slack queues every call.
    stack.github.fault({ method: 'POST', path: /\/repos\/acme\/api\/issues$/, status: 502 });
    await hangWhile(
      'on-release',
      async () => {
        const answer = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> yes, file it', threadTs: mention.ts });
        // Slack's Web API hanging does not stop Tandem from taking requests: they are stored and acknowledged.
        expect((await answer).status).toBe(200);
      },
      () => expect(thread().some(isEscalation)).toBe(false),
    );
    await stack.slack.waitUntil(() => thread().some(isEscalation), 30_000, 'the escalation once Slack answers');

    // 3. Calls are lost in front of Slack: the summary falls due and is sent again only once Slack answers.
    await hangWhile(
      'never',
      async () => {
        const escalation = thread().find(isEscalation)!;
        const click = await stack.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'U2');
        expect(click.status).toBe(200);
      },
      () => expect(thread().some(isSummary)).toBe(false),
    );
    await stack.slack.waitUntil(() => summarised(thread()), 30_000, 'the summary once Slack answers');
    await stack.runtime.agent.idle();
    await sleep(1_500); // a late second copy would land now

    const messages = thread();
    expect(messages.filter(isQuestion)).toHaveLength(1);
    expect(messages.filter(isEscalation)).toHaveLength(1);
    expect(messages.filter(isSummary)).toHaveLength(1);
    expect(messages.find(isSummary)!.text).toMatch(/^:white_check_mark: Succeeded/);
    expect(messages.find(isQuestion)!.text).toMatch(/Answered by <@U1>/);
    const boards = messages.filter(isBoard);
    expect(boards).toHaveLength(1);
    expect(boards[0]!.text).toMatch(/^Succeeded:/);
    // In the thread's order: the board, the question, the escalation, the summary.
    const order = [boards[0]!, messages.find(isQuestion)!, messages.find(isEscalation)!, messages.find(isSummary)!].map((m) => messages.indexOf(m));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(stack.issues() - issuesBefore).toBe(1);

    expect(healthSeen.length).toBeGreaterThan(10);
    expect(healthSeen.every((status) => status === 200)).toBe(true);
    expect(await metricsText(stack.baseUrl)).toMatch(/tandem_api_errors_total\{api="slack",kind="timeout"\} [1-9]/);
  }, 120_000);
});
