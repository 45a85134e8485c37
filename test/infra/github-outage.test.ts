/**
 * GitHub fails during a write (CONTRACT §6): a connection reset after the issue was created, a 502 for a
 * request GitHub never acted on, and a secondary rate limit. Each write ends reconciled or escalated and
 * is never sent twice: at most one issue per run, and the thread says what happened (an escalation names
 * a change that may or may not have happened).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, summarised, TASK, type OutageStack } from './outage-stack.ts';

const ISSUES = /\/repos\/acme\/api\/issues$/;

describe('GitHub fails during a write', () => {
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

  const posts = () => stack.github.requests.filter((request) => request.method === 'POST' && ISSUES.test(request.path)).length;
  const escalated = (ts: string) => stack.thread(ts).some((m) => /Retry/.test(JSON.stringify(m.blocks ?? '')) && !/^Plan/.test(m.text));
  const endsWith = async (ts: string) => {
    await stack.slack.waitUntil(() => summarised(stack.thread(ts)) || escalated(ts), 40_000, 'a summary or an escalation');
    return summarised(stack.thread(ts)) ? 'summary' : 'escalation';
  };

  it.each([
    // The answer was lost after GitHub acted: a person is asked (Retry / Skip / Abort), nothing is sent again.
    ['the connection is reset after the issue was created', { afterEffect: true, drop: true }, 'escalation'],
    ['GitHub answers 502 without acting', { status: 502 }, 'escalation'],
  ] as const)(
    'when %s: one issue at most, and the run says so',
    async (_name, fault, expected) => {
      const issuesBefore = stack.issues();
      const postsBefore = posts();
      stack.github.fault({ method: 'POST', path: ISSUES, ...fault });
      const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
      expect((await mention).status).toBe(200);
      await stack.approve(mention.ts);
      const ending = await endsWith(mention.ts);
      expect(ending).toBe(expected);
      expect(posts() - postsBefore).toBe(1); // sent once, never again blindly
      expect(stack.issues() - issuesBefore).toBe('status' in fault ? 0 : 1);
    },
    60_000,
  );

  it('waits out a secondary rate limit on a write and sends it once it may', async () => {
    const issuesBefore = stack.issues();
    stack.github.fault({
      method: 'POST',
      path: ISSUES,
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
    });
    const mention = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await mention).status).toBe(200);
    await stack.approve(mention.ts);
    // Rate-limited means GitHub did nothing: sending again after the wait is safe.
    expect(await endsWith(mention.ts)).toBe('summary');
    expect(stack.issues() - issuesBefore).toBe(1);
  }, 60_000);
});
