/**
 * The connection to PostgreSQL is reset in the middle of a statement: the server ran it (a read, the
 * Approve click's write, a transaction's commit) and the answer never reaches Tandem, which cannot know
 * whether it took effect. Each case is proven harmless by what a person sees: the Slack request involved
 * is answered 2xx only once it was stored, or 5xx (and Slack's retry is handled once); the run goes on by
 * itself and ends once, with one GitHub write, one plan, one approval and one summary. PostgreSQL only (a
 * TCP proxy between Tandem and the server resets the one connection).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { untilIdle } from '../helpers/until-idle.ts';
import { startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl) console.log('test/infra/connection-reset.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

const within = <T>(work: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([work, sleep(ms).then(() => Promise.reject(new Error(`no ${what} within ${ms} ms`)))]);

describe.skipIf(!serverUrl)('a connection reset in the middle of a statement', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let stack: OutageStack;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    const url = new URL(database.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    stack = await startOutageStack({ DATABASE_URL: proxy.urlFor(database.url!) }, {}, { logs });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
    await database?.destroy();
  });

  /** A run from mention to summary; `breakIt` approves it and breaks something on the way. */
  async function oneRun(breakIt: (ts: string) => Promise<void>): Promise<string> {
    const issuesBefore = stack.issues();
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await breakIt(mention.ts);
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the run’s summary');
    await untilIdle(stack.baseUrl); // a late duplicate would have come by now (test/helpers/until-idle.ts)
    const messages = stack.thread(mention.ts);
    expect(stack.issues()).toBe(issuesBefore + 1);
    expect(messages.filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    expect(
      messages.filter((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION) || /Approved by/.test(JSON.stringify(m.blocks ?? ''))),
    ).toHaveLength(1);
    const [run] = await stack.runtime.store.listRuns({ limit: 1 });
    expect(run?.status).toBe('succeeded');
    return mention.ts;
  }

  it('a read whose answer is lost is sent again, so the Approve click it served is not lost', async () => {
    await oneRun(async (ts) => {
      await stack.approve(ts);
      const reset = proxy.resetAfterAnswer((statement) => /^\s*select\b/i.test(statement) && /from "?(runs|steps|plan_versions)\b/i.test(statement));
      expect(await within(reset, 20_000, 'read')).toMatch(/^select/);
    });
    // The click's handler read the run through the reset: without a second try it told the clicker to try again.
    expect(logs.filter((line) => line.msg === 'plan decision failed')).toEqual([]);
  }, 90_000);

  it('the Approve click’s write applied but unanswered: the click is refused or acknowledged, approved once', async () => {
    await oneRun(async (ts) => {
      await stack.slack.waitUntil(() => stack.planIn(ts) !== undefined, 20_000, 'the plan');
      const reset = proxy.resetAfterAnswer((statement) => /insert into "approvals"/i.test(statement));
      const click = await stack.driver.clickButtonIn(stack.planIn(ts)!, PLAN_APPROVE_ACTION, 'U2');
      await within(reset, 10_000, 'approval write');
      // As Slack does with a request not answered 2xx: sent again.
      if (click.status >= 300) expect((await stack.driver.clickButtonIn(stack.planIn(ts)!, PLAN_APPROVE_ACTION, 'U2')).status).toBe(200);
      console.log(`the click during the reset got ${click.status}`);
    });
  }, 90_000);

  it('a commit applied but unanswered is not repeated: the question asked once, the run ends once', async () => {
    const issuesBefore = stack.issues();
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> drill with a question' });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    // The question and the message it owes its thread are stored in one transaction: its commit's answer is lost.
    const reset = proxy.resetAfterAnswer((statement) => /^commit$/i.test(statement.trim()));
    await within(reset, 20_000, 'commit');
    // Counted by what each message was posted as: a question keeps its section (`:question:` and the words) once answered.
    const questions = () =>
      stack.thread(mention.ts).filter((m) => {
        const blocks = JSON.stringify(m.blocks ?? '');
        return blocks.includes(':question:') && blocks.includes('Shall I file the drill issue?');
      });
    await stack.slack.waitUntil(() => questions().length > 0, 30_000, 'the question');
    const answer = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> yes, file it', threadTs: mention.ts });
    expect((await answer).status).toBe(200);
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)), 30_000, 'the run’s summary');
    await untilIdle(stack.baseUrl);
    expect(questions()).toHaveLength(1);
    expect(stack.issues()).toBe(issuesBefore + 1);
    expect(stack.thread(mention.ts).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
  }, 90_000);

  it('a plan’s question whose store answer is lost reaches the thread once', async () => {
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> drill asking first' });
    // The statement that makes the question stored has its answer lost: its transaction's commit, or the insert itself
    // when it stands alone (as it did before it was stored with the message it owes: the thread never got it).
    let inTransaction = false;
    let questionWritten = false;
    const reset = proxy.resetAfterAnswer((statement) => {
      const text = statement.trim().toLowerCase();
      if (text === 'begin') inTransaction = true;
      if (/^insert into "questions"/.test(text)) {
        if (!inTransaction) return true;
        questionWritten = true;
      }
      if (text === 'commit' || text === 'rollback') {
        inTransaction = false;
        return questionWritten && text === 'commit';
      }
      return false;
    });
    expect((await mention).status).toBe(200);
    console.log(`reset after: ${(await within(reset, 20_000, 'the question write')).slice(0, 60)}`);
    const questions = () =>
      stack.thread(mention.ts).filter((m) => {
        const blocks = JSON.stringify(m.blocks ?? '');
        return blocks.includes(':question:') && blocks.includes('Which drill should I run?');
      });
    await stack.slack.waitUntil(() => questions().length > 0, 30_000, 'the question');
    await untilIdle(stack.baseUrl);
    await sleep(2000);
    await untilIdle(stack.baseUrl);
    expect(questions()).toHaveLength(1);
    const [run] = await stack.runtime.store.listRuns({ limit: 1 });
    expect(run?.status).toBe('awaiting-answer');
    expect((await stack.runtime.store.listQuestions(run!.id)).filter((q) => q.answeredAt === null)).toHaveLength(1);
  }, 90_000);
});
