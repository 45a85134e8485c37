/**
 * A half-written answer (issue 33, bad input): GitHub created the issue and its answer stops halfway, the
 * status and headers sent, the body cut off mid-JSON. Tandem cannot read what it got, so it must treat the
 * write as one that may have happened: the issue is never sent twice, and the run ends reconciled (its
 * summary) or escalated to a person (Retry / Skip / Abort), never stuck.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const ISSUES = /\/repos\/acme\/api\/issues$/;

describe('GitHub’s answer to a write is cut off halfway', () => {
  let database: TestDatabase | undefined;
  let stack: OutageStack;

  beforeAll(async () => {
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    stack = await startOutageStack(database ? { DATABASE_URL: database.url! } : 'pglite');
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await database?.destroy();
  });

  it('sends the write once and ends the run reconciled or escalated', async () => {
    const posts = () => stack.github.requests.filter((request) => request.method === 'POST' && ISSUES.test(request.path)).length;
    const escalated = (ts: string) => stack.thread(ts).some((m) => /Retry/.test(JSON.stringify(m.blocks ?? '')) && !/^Plan/.test(m.text));
    stack.github.fault({ method: 'POST', path: ISSUES, afterEffect: true, halfWritten: true });
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    await stack.slack.waitUntil(() => summarised(stack.thread(mention.ts)) || escalated(mention.ts), 40_000, 'a summary or an escalation');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(posts()).toBe(1);
    expect(stack.issues()).toBe(1);
  }, 60_000);
});
