/**
 * The planner's model provider is down (5xx after the SDK's retries): the fallback planner plans when it
 * is configured and answers; when it is down too, the thread says the planner is unavailable and offers
 * Try again, nothing retries on its own (no budget spent in a loop), and the requester's click plans the
 * same task once. OpenAI and Anthropic are fake servers on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { PLANNER_TRY_AGAIN_ACTION } from '../../src/bot/views/run/planner-unavailable.ts';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, type OutageStack } from './outage-stack.ts';

const PLAN = {
  goal: 'Read acme/api',
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Read acme/api', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] }],
  rollback: [],
};
// Three tries: the SDKs retry twice; retry-after keeps the test quick.
const down = <R>(reply: (status: number, headers: Record<string, string>) => R): R[] =>
  [1, 2, 3].map(() => reply(503, { 'retry-after-ms': '5', 'retry-after': '0' }));

describe('the model provider is down while planning or checking', () => {
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let database: TestDatabase | undefined;
  let stack: OutageStack;

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    stack = await startOutageStack(database ? { DATABASE_URL: database.url! } : 'pglite', {
      OPENAI_API_KEY: 'sk-model-outage-000000000000',
      OPENAI_BASE_URL: openai.url,
      PLANNER_MODEL: 'openai:gpt-4o',
      ANTHROPIC_API_KEY: 'sk-ant-model-outage-0000000000',
      ANTHROPIC_BASE_URL: anthropic.url,
      PLANNER_FALLBACK_MODEL: 'anthropic:claude-sonnet-4-5',
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all([openai?.close(), anthropic?.close()]);
    await database?.destroy();
  });

  const providerCalls = () => openai.requests.length + anthropic.requests.length;

  /**
   * Mentions the bot with `task`, approves its plan, and waits for a message asking a person to answer (Retry,
   * Try again or Abort; not the board's Cancel run). Returns the provider calls made since `before`, after
   * checking that none follows: nothing goes on calling a provider that is down.
   */
  async function callsUntilAPersonIsAsked(task: string, before: number): Promise<number> {
    const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text: task });
    expect((await sent).status).toBe(200);
    await stack.approve(sent.ts);
    const asks = (m: { blocks?: unknown }) =>
      /"text":"(Retry|Try again|Abort)"/.test(JSON.stringify(m.blocks ?? '')) && !JSON.stringify(m.blocks).includes(PLAN_APPROVE_ACTION);
    await stack.slack.waitUntil(() => stack.thread(sent.ts).some(asks), 40_000, 'a message asking a person to act');
    const seen = providerCalls() - before;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(providerCalls() - before).toBe(seen);
    return seen;
  }

  it('plans with the fallback model when the planner is down', async () => {
    openai.enqueue(...down(openAiReply.status));
    anthropic.enqueue(anthropicReply.json(PLAN));
    const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> read acme/api for me' });
    expect((await sent).status).toBe(200);
    await stack.slack.waitUntil(() => stack.planIn(sent.ts) !== undefined, 30_000, 'the fallback plan');
    expect(stack.planIn(sent.ts)!.text).toContain('Read acme/api');
  }, 60_000);

  it('says the planner is unavailable and offers Try again when the fallback is down too; one click plans once', async () => {
    openai.enqueue(...down(openAiReply.status));
    anthropic.enqueue(...down(anthropicReply.status));
    const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> read acme/api again' });
    expect((await sent).status).toBe(200);
    const unavailable = () => stack.thread(sent.ts).find((m) => JSON.stringify(m.blocks ?? '').includes(PLANNER_TRY_AGAIN_ACTION));
    await stack.slack.waitUntil(() => unavailable() !== undefined, 30_000, 'the planner-unavailable message');
    expect(unavailable()!.text).toMatch(/planner is unavailable/);
    // Nothing tries again by itself: the answers scripted were all the calls made.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(openai.requests).toHaveLength(6);
    expect(anthropic.requests).toHaveLength(4); // one answer in the test before

    // Only the requester may try again.
    await stack.driver.clickButtonIn(unavailable()!, PLANNER_TRY_AGAIN_ACTION, 'U9');
    await stack.slack.waitUntil(() => stack.slack.model.ephemeralsFor('U9').length > 0, 10_000, 'a private refusal');
    openai.enqueue(openAiReply.json(PLAN));
    await stack.driver.clickButtonIn(unavailable()!, PLANNER_TRY_AGAIN_ACTION, 'U1');
    await stack.driver.clickButtonIn(unavailable()!, PLANNER_TRY_AGAIN_ACTION, 'U1');
    await stack.slack.waitUntil(() => stack.planIn(sent.ts) !== undefined, 30_000, 'the plan after Try again');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(openai.requests).toHaveLength(7);
    expect(stack.thread(sent.ts).filter((m) => m.text.startsWith('Plan v1'))).toHaveLength(1);
  }, 60_000);

  it('does not hang when the model of an llm_task step is down: a person is told and the calls stop', async () => {
    const summarise = {
      ...PLAN,
      steps: [
        {
          id: 's1',
          title: 'Summarise the notes',
          tool: 'llm_task',
          args: { instruction: 'Summarise the release notes', inputs: { notes: 'v2' } },
          dependsOn: [],
        },
      ],
    };
    const before = providerCalls();
    // The plan, then every call fails: the step's four tries (a transient error is tried again three times)
    // of the SDK's three requests each, then one replan on the planner (three requests) and on its fallback
    // (three). A request beyond these would get the fake's "unexpected request" and fail the suite.
    openai.enqueue(openAiReply.json(summarise), ...Array.from({ length: 5 }, () => down(openAiReply.status)).flat());
    anthropic.enqueue(...down(anthropicReply.status));
    expect(await callsUntilAPersonIsAsked('<@UBOT> summarise the release notes', before)).toBe(1 + 4 * 3 + 3 + 3);
  }, 60_000);

  it('does not hang when the model of an agent_task step goes down mid-task: a person is told and the calls stop', async () => {
    const investigate = {
      ...PLAN,
      steps: [
        {
          id: 's1',
          title: 'Find out what acme/api is',
          tool: 'agent_task',
          args: { instruction: 'Find out what acme/api is', tools: ['github_get_repo'] },
          dependsOn: [],
        },
      ],
    };
    const before = providerCalls();
    // The plan; the agent's first turn asks for a read, which runs; its next turn fails (the SDK's three
    // requests; the step is not tried again, a model outage mid-task is not a transient tool error), and so
    // does one replan on the planner and on its fallback.
    openai.enqueue(
      openAiReply.json(investigate),
      openAiReply.toolCalls([{ name: 'github_get_repo', args: { repo: 'acme/api' } }]),
      ...down(openAiReply.status),
      ...down(openAiReply.status),
    );
    anthropic.enqueue(...down(anthropicReply.status));
    expect(await callsUntilAPersonIsAsked('<@UBOT> find out what acme/api is', before)).toBe(1 + 1 + 3 + 3 + 3);
  }, 60_000);

  it('does not hang when the evaluator is down: the run ends and no call is repeated', async () => {
    const checked = { ...PLAN, steps: [{ ...PLAN.steps[0]!, expect: 'the repository exists' }] };
    const before = openai.requests.length;
    openai.enqueue(openAiReply.json(checked), ...down(openAiReply.status));
    const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> read acme/api and check it' });
    expect((await sent).status).toBe(200);
    await stack.approve(sent.ts);
    const ended = () => stack.thread(sent.ts).find((m) => /^:(white_check_mark|x|warning)/.test(m.text) || m.text.startsWith('Escalation'));
    await stack.slack.waitUntil(() => ended() !== undefined, 30_000, 'the run to end or ask a person');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(openai.requests.length - before).toBe(4);
  }, 60_000);
});
