/**
 * Slack's Web API is down while a run executes (CONTRACT §6: an outage delays what depends on it and
 * never loses an owed message): the run goes on, and once Slack answers again the board's final state
 * and the summary arrive, once each and in that order; the GitHub write happened once. (A rate-limited
 * board edit is covered in test/runtime/full-stack.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const isSummary = (text: string) => text.startsWith(':white_check_mark: Succeeded');

describe('Slack is down while a run executes', () => {
  let database: TestDatabase | undefined;
  let stack: OutageStack;

  beforeAll(async () => {
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    // The client's waits between tries of a failing call shortened (0.5 s doubling to 5 s, randomised, in the product),
    // so a call that Slack's return finds between tries is sent again within moments.
    stack = await startOutageStack(database ? { DATABASE_URL: database.url! } : 'pglite', {}, { slackTimings: { retryBackoffMs: { min: 50, max: 400 } } });
  }, 60_000);

  afterAll(async () => {
    stack?.slack.outage(undefined);
    await stack?.close();
    await database?.destroy();
  });

  it.each([
    ['answers service_unavailable', { error: 'service_unavailable' }],
    ['answers HTTP 503', { status: 503 }],
  ] as const)(
    'delivers the final board and the summary once, in order, after Slack %s',
    async (_name, answer) => {
      const before = stack.issues();
      const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
      expect((await mention).status).toBe(200);
      await stack.approve(mention.ts);
      await stack.slack.waitUntil(() => stack.thread(mention.ts).some((m) => m.text.startsWith('Running')), 20_000, 'the board');
      stack.slack.outage(answer);
      const runId = (await stack.runtime.store.listRuns({ limit: 20 })).find((run) => run.conversation.threadTs === mention.ts)!.id;
      // The run does not wait for Slack.
      for (let tries = 0; (await stack.runtime.store.getRun(runId))?.status !== 'succeeded'; tries++) {
        if (tries > 200) throw new Error('the run did not end while Slack was down');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(stack.issues()).toBe(before + 1);
      expect(summarised(stack.thread(mention.ts))).toBe(false);

      stack.slack.outage(undefined);
      await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the summary once Slack is back');
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // a late duplicate would land now
      const messages = stack.thread(mention.ts);
      expect(messages.filter((m) => isSummary(m.text))).toHaveLength(1);
      const boards = messages.filter((m) => /^(Running|Succeeded|Failed)/.test(m.text));
      expect(boards).toHaveLength(1);
      expect(boards[0]!.text).toMatch(/^Succeeded:/);
      // In order: the board's last edit reached Slack before the summary was posted.
      const calls = stack.slack.calls.filter((call) => call.status === 200 && call.response?.ok);
      const lastBoardEdit = calls.findLastIndex((call) => call.method === 'chat.update' && call.params.ts === boards[0]!.ts);
      const summaryPost = calls.findIndex(
        (call) => call.method === 'chat.postMessage' && isSummary(call.params.text ?? '') && call.params.thread_ts === mention.ts,
      );
      expect(lastBoardEdit).toBeGreaterThanOrEqual(0);
      expect(lastBoardEdit).toBeLessThan(summaryPost);
      expect(stack.issues()).toBe(before + 1);
    },
    90_000,
  );
});
