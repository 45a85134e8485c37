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
  const logs: Record<string, unknown>[] = [];
  /** The log's warnings that an owed message of this kind could not be delivered, with the attempt each was. */
  const failedDeliveries = (kind: string) =>
    logs
      .filter((line) => line.msg === 'delivering an owed message failed; will retry' && String(line.owed).includes(`/${kind}`))
      .map((line) => Number(line.attempts));
  let watching: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    stack = await startOutageStack(
      database ? { DATABASE_URL: database.url! } : 'pglite',
      {},
      {
        slackTimings: {
          requestTimeoutMs: TIMEOUT_MS,
          retryBackoffMs: { min: 20, max: 100 },
          postSettle: { settleMs: 600, pollMs: 100 },
          boardRetryBaseMs: 200,
        },
        logs,
      },
    );
    // /healthz is about the store: Slack hanging must not make an orchestrator pull the replica.
    watching = setInterval(
      () =>
        void health(stack.baseUrl).then(
          (answer) => healthSeen.push(answer.status),
          // No answer at all counts against the bot while watched; a poll still on its way when watching stopped does not.
          () => watching && healthSeen.push(0),
        ),
      250,
    );
  }, 60_000);

  afterAll(async () => {
    clearInterval(watching);
    watching = undefined;
    stack?.slack.release();
    await stack?.close();
    await database?.destroy();
  });

  /**
   * Slack hangs (in the given way) while `owe` makes the run owe a message, until `until` holds (read
   * from the log: the owed message's delivery failed, each failure a full try in which the client gave up
   * on several calls); `beforeRelease` then checks the thread as it stands, and Slack answers again.
   */
  async function hangWhile(
    effect: HangEffect,
    steps: { owe: () => Promise<unknown>; until: () => boolean | Promise<boolean>; what: string; beforeRelease: () => void },
  ): Promise<void> {
    stack.slack.hang({ effect });
    await steps.owe();
    for (let waited = 0; !(await steps.until()); waited += 100) {
      if (waited > 60_000) throw new Error(`never saw ${steps.what} while Slack hung`);
      await sleep(100);
    }
    steps.beforeRelease();
    stack.slack.release();
  }

  /** The bot read the thread and found the owed message of this kind there (how a redelivery knows it was posted). */
  const foundByBot = (kind: string, since: number) =>
    stack.slack.calls.some(
      (call) =>
        call.at >= since &&
        call.method === 'conversations.replies' &&
        call.response?.ok === true &&
        JSON.stringify(call.response.messages ?? []).includes(`/${kind}/`),
    );
  const boardFailures = () => logs.filter((line) => line.msg === 'status board update failed; will retry').length;

  it('delivers the question, the escalation and the summary once each, in order, with the board right', async () => {
    const issuesBefore = stack.issues();
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    await stack.slack.waitUntil(() => stack.thread(mention.ts).some(isBoard), 20_000, 'the board');
    const thread = () => stack.thread(mention.ts);
    const runId = (await stack.runtime.store.listRuns({ limit: 20 })).find((run) => run.conversation.threadTs === mention.ts)!.id;

    // 1. Slack acts on each call at once but answers none: the question lands while the bot hears nothing.
    // It hangs until a second delivery failed too: that one had to look for the first before posting.
    await hangWhile('at-once', {
      owe: () => Promise.resolve(),
      until: () => failedDeliveries('question').length >= 2,
      what: 'two failed deliveries of the question',
      beforeRelease: () => expect(thread().filter(isQuestion)).toHaveLength(1),
    });
    let released = Date.now();
    await stack.slack.waitUntil(() => foundByBot('question', released), 30_000, 'the bot finding its question');

    // 2. GitHub fails the write, so the answer leads to an escalation, owed while Slack queues every call.
    stack.github.fault({ method: 'POST', path: /\/repos\/acme\/api\/issues$/, status: 502 });
    await hangWhile('on-release', {
      owe: async () => {
        const answer = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> yes, file it', threadTs: mention.ts });
        // Slack's Web API hanging does not stop Tandem from taking requests: they are stored and acknowledged.
        expect((await answer).status).toBe(200);
      },
      until: () => failedDeliveries('escalation').length >= 1,
      what: 'a failed delivery of the escalation',
      beforeRelease: () => expect(thread().some(isEscalation)).toBe(false),
    });
    released = Date.now();
    await stack.slack.waitUntil(() => foundByBot('escalation', released), 30_000, 'the bot finding its escalation');

    // 3. Calls are lost in front of Slack: the run ends, its final board and summary fall due and must be sent again.
    const boardFailuresBefore = boardFailures();
    await hangWhile('never', {
      owe: async () => {
        const click = await stack.driver.clickButtonIn(thread().find(isEscalation)!, ESCALATION_ACTIONS.retry, 'U2');
        expect(click.status).toBe(200);
      },
      until: async () => (await stack.runtime.store.getRun(runId))?.status === 'succeeded' && boardFailures() >= boardFailuresBefore + 2,
      what: 'the run ending and its board failing to reach Slack',
      beforeRelease: () => expect(thread().some(isSummary)).toBe(false),
    });
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
    // The board reached its final state on Slack before the summary was posted below it.
    const applied = stack.slack.calls.filter((call) => call.status === 200 && call.response?.ok === true);
    const finalBoard = applied.findIndex(
      (call) => call.method === 'chat.update' && call.params.ts === boards[0]!.ts && /^Succeeded:/.test(call.params.text ?? ''),
    );
    const summaryPost = applied.findIndex((call) => call.method === 'chat.postMessage' && (call.params.metadata ?? '').includes('/run-finished'));
    expect(finalBoard).toBeGreaterThanOrEqual(0);
    expect(finalBoard).toBeLessThan(summaryPost);
    expect(stack.issues() - issuesBefore).toBe(1);

    expect(healthSeen.length).toBeGreaterThan(10);
    expect(healthSeen.every((status) => status === 200)).toBe(true);
    expect(await metricsText(stack.baseUrl)).toMatch(/tandem_api_errors_total\{api="slack",kind="timeout"\} [1-9]/);
  }, 120_000);
});
