import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRunbookCatalog, type RunbookCatalog } from '../../src/runbooks/catalog.ts';
import { createRunbooksStore } from '../../src/store/index.ts';
import { createSchedules, type Schedules } from '../../src/runtime/schedules.ts';
import { SCHEDULE_REMOVE_ACTION } from '../../src/bot/views/schedules.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { cronFires } from '../../src/store/schema.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startSlackE2E, ToolBench, type SlackE2E } from '../fakes/slack-e2e.ts';
import { useTestStore } from '../helpers/store.ts';

const db = useTestStore();
const logger = createLogger({ level: 'silent', secrets: [] });
let dir: string;
let e: SlackE2E;
let schedules: Schedules;
let catalog: RunbookCatalog;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tandem-schedules-'));
  await writeFile(
    path.join(dir, 'check.yml'),
    'name: check\npattern: "check {target}"\npreApproved: true\nplan:\n  goal: "Check {target}"\n  steps:\n    - { id: s1, title: "Check {target}", tool: check_thing, args: { target: "{target}" } }\n',
  );
  await writeFile(
    path.join(dir, 'change.yml'),
    'name: change\npattern: "change {target}"\npreApproved: true\nplan:\n  goal: "Change {target}"\n  steps:\n    - { id: s1, title: "Change {target}", tool: change_thing, args: { target: "{target}" } }\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function start() {
  const risks = new Map(new ToolBench().tools().map((tool) => [tool.name, tool.risk]));
  catalog = await createRunbookCatalog({ store: createRunbooksStore(db.database.db), dir, logger, riskOf: (tool) => risks.get(tool) });
  e = await startSlackE2E(db.store, {
    runbooks: catalog,
    schedules: ({ agent, client }) => {
      schedules = createSchedules({ db: db.database.db, replicaId: 'test-replica', agent, client, logger, secrets: [] });
      return schedules.service;
    },
  });
  e.fake.model.users.set('UREQ', { id: 'UREQ', name: 'req', real_name: 'Requester', tz: 'America/New_York' });
  e.fake.model.users.set('UAPP1', { id: 'UAPP1', name: 'app', real_name: 'Approver', tz: 'Europe/Berlin' });
}
afterEach(async () => {
  await schedules.scheduler.stop();
  for (const schedule of await schedules.service.list({})) await schedules.service.remove(schedule.id);
  await e.stop();
});

const blocksText = (m: { blocks?: unknown[] }) => JSON.stringify(m.blocks ?? []);
const ephemerals = (user: string) =>
  e.fake.model
    .ephemeralsFor(user)
    .map((x) => x.text)
    .join('\n');

async function command(user: string, text: string, channel = 'C1'): Promise<Record<string, unknown>> {
  const before = e.fake.model.responses.length;
  expect((await e.driver.command({ user, channel, text })).status).toBe(200);
  await e.fake.waitUntil(() => e.fake.model.responses.length > before, 5000, `the answer to /tandem ${text}`);
  return e.fake.model.responses[before]!.body;
}

function removeValues(body: Record<string, unknown>): string[] {
  const blocks = (body.blocks ?? []) as { accessory?: { action_id?: string; value?: string } }[];
  return blocks.filter((b) => b.accessory?.action_id === SCHEDULE_REMOVE_ACTION).map((b) => b.accessory!.value!);
}

describe('schedules from Slack (real Bolt, agent, store, scheduler)', () => {
  it('a token pasted into a scheduled task is redacted before it is stored and before it is echoed', async () => {
    await start();
    const token = 'ghp_StrangerPastedThisToken0123456789';
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> every weekday at 09:00 deploy acme/api with ${token} <!channel>` });
    expect((await sent).status).toBe(200);
    const reply = await e.waitForMessage(sent.ts, (m) => m.text.startsWith(':alarm_clock: Scheduled'), 'the schedule reply');
    const [stored] = await schedules.service.list({ channel: 'C1' });
    expect(stored!.task).toBe('deploy acme/api with [redacted] <!channel>');
    expect(`${reply.text}${blocksText(reply)}`).not.toContain(token);
    expect(`${reply.text}${blocksText(reply)}`).not.toContain('<!channel>');
    const rows = await db.database.db.execute('select task from schedules');
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("a schedule mention makes a schedule in the person's zone and answers with the cron, three fire times and Remove", async () => {
    await start();
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> every weekday at 09:00 triage open pull requests in acme/api' });
    expect((await sent).status).toBe(200);
    const reply = await e.waitForMessage(sent.ts, (m) => m.text.startsWith(':alarm_clock: Scheduled'), 'the schedule reply');

    const [stored] = await schedules.service.list({ channel: 'C1' });
    expect(stored).toMatchObject({
      cron: '0 9 * * 1-5',
      timeZone: 'America/New_York',
      task: 'triage open pull requests in acme/api',
      createdBy: 'UREQ',
      channel: 'C1',
    });
    expect(stored!.nextFires).toHaveLength(3);
    const text = blocksText(reply);
    expect(text).toContain('`0 9 * * 1-5` in America/New_York');
    for (const fire of stored!.nextFires) expect(text).toContain(fire);
    expect(stored!.nextFires.every((fire) => /09:00 E[SD]T$/.test(fire) && /^(Mon|Tue|Wed|Thu|Fri),/.test(fire))).toBe(true);
    expect(text).toContain(SCHEDULE_REMOVE_ACTION);
    expect(text).not.toContain('uses UTC');
    expect((await db.store.listRuns({ limit: 100 })).some((run) => run.conversation.threadTs === sent.ts)).toBe(false);

    // Someone else may not remove it; its creator may, and the reply loses its button.
    await e.driver.clickButtonIn(reply, SCHEDULE_REMOVE_ACTION, 'UOUTSIDER');
    await e.fake.waitUntil(() => ephemerals('UOUTSIDER').includes('may remove it'), 5000, 'the refusal');
    expect(await schedules.service.list({ channel: 'C1' })).toHaveLength(1);
    await e.driver.clickButtonIn(reply, SCHEDULE_REMOVE_ACTION, 'UREQ');
    await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', reply.ts)!).includes('removed by <@UREQ>'), 5000, 'the removal');
    expect(await schedules.service.list({ channel: 'C1' })).toHaveLength(0);
  });

  it('without a time zone from Slack the schedule uses UTC and says so; a bad phrase gets the forms that work', async () => {
    await start();
    const answer = await command('UNOTZ', 'schedule every day at 9am post the standup reminder');
    expect(blocksText(answer)).toContain('`0 9 * * *` in UTC');
    expect(blocksText(answer)).toContain('uses UTC');
    expect(answer.response_type).toBe('ephemeral');
    expect(await schedules.service.list({ createdBy: 'UNOTZ' })).toMatchObject([{ timeZone: 'UTC' }]);

    const bad = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> every 90 minutes check CI on acme/api' });
    await bad;
    const reply = await e.waitForMessage(bad.ts, (m) => m.text.includes('could not make a schedule'), 'the error');
    expect(reply.text).toContain('Schedules I understand');
    expect(reply.text).toContain('every weekday at 09:00');
    const badCommand = await command('UREQ', 'schedule whenever you like deploy');
    expect(String(badCommand.text)).toContain('Schedules I understand');
    expect(await schedules.service.list({ createdBy: 'UREQ' })).toHaveLength(0);
  });

  it("/tandem schedules lists the channel's schedules; Remove is refused to others and allowed to an approver", async () => {
    await start();
    await command('UREQ', 'schedule every monday at 14:30 check alpha');
    await command('UREQ', 'schedule every hour check beta');
    await command('UREQ', 'schedule every hour check gamma', 'C2');
    const list = await command('UOUTSIDER', 'schedules');
    expect(list.response_type).toBe('ephemeral');
    expect(blocksText(list)).toContain('check alpha');
    expect(blocksText(list)).toContain('check beta');
    expect(blocksText(list)).not.toContain('check gamma');
    const [first, second] = removeValues(list);
    expect(second).toBeDefined();

    await e.driver.click({ user: 'UOUTSIDER', channel: 'C1', messageTs: '1.000001', actionId: SCHEDULE_REMOVE_ACTION, value: first });
    await e.fake.waitUntil(() => ephemerals('UOUTSIDER').includes('may remove it'), 5000, 'the refusal');
    expect(await schedules.service.list({ channel: 'C1' })).toHaveLength(2);

    const before = e.fake.model.responses.length;
    await e.driver.click({ user: 'UAPP1', channel: 'C1', messageTs: '1.000001', actionId: SCHEDULE_REMOVE_ACTION, value: first });
    await e.fake.waitUntil(() => e.fake.model.responses.length > before, 5000, 'the redrawn list');
    const redrawn = e.fake.model.responses[before]!.body;
    expect(redrawn.replace_original).toBe(true);
    expect(blocksText(redrawn)).toContain('removed by <@UAPP1>');
    expect(removeValues(redrawn)).toEqual([second]);
    expect((await schedules.service.list({ channel: 'C1' })).map((s) => s.task)).toEqual(['check beta']);

    const help = await command('UREQ', 'help');
    expect(String(help.text)).toContain('/tandem schedule');
    expect(String(help.text)).toContain('/tandem schedules');
  });

  it('a fired schedule of a pre-approved read-only runbook runs without a click; a write runbook waits for approval', async () => {
    await start();
    await schedules.scheduler.start();
    await command('UREQ', 'schedule cron: * * * * * * check alpha');
    await command('UREQ', 'schedule cron: * * * * * * change alpha');
    const roots = (task: string) => e.fake.model.messages.filter((m) => m.channel === 'C1' && !m.threadTs && m.text.includes(`Scheduled by <@UREQ>: ${task}`));
    const isSummary = (m: FakeMessage) => m.text.startsWith(':white_check_mark: Succeeded');
    await e.fake.waitUntil(() => roots('check alpha').some((root) => e.thread(root.ts).some(isSummary)), 10_000, 'a scheduled check to finish');
    await e.fake.waitUntil(
      () => roots('change alpha').some((root) => e.thread(root.ts).some((m) => m.text.startsWith('Plan v1'))),
      10_000,
      'a scheduled change to propose its plan',
    );
    // Each fire is linked to the run it started (read before removing: a schedule's fires go with it).
    const fires = await db.database.db.select().from(cronFires);
    for (const schedule of await schedules.service.list({})) await schedules.service.remove(schedule.id);
    await e.agent.idle();

    const checkRoot = roots('check alpha').find((root) => e.thread(root.ts).some(isSummary))!;
    expect(blocksText(e.thread(checkRoot.ts).find((m) => m.text.startsWith('Plan v1'))!)).toContain('running without a click');
    const checkRun = (await db.store.listRuns({ limit: 100 })).find((run) => run.conversation.threadTs === checkRoot.ts)!;
    expect(checkRun).toMatchObject({ origin: 'schedule', requester: 'UREQ', status: 'succeeded' });
    expect((await db.store.listApprovals(checkRun.id)).map((a) => a.userId)).toEqual(['runbook:check']);

    const changeRoot = roots('change alpha')[0]!;
    const changePlan = e.thread(changeRoot.ts).find((m) => m.text.startsWith('Plan v1'))!;
    expect(blocksText(changePlan)).toContain(PLAN_APPROVE_ACTION);
    const changeRun = (await db.store.listRuns({ limit: 100 })).find((run) => run.conversation.threadTs === changeRoot.ts)!;
    expect(changeRun.status).toBe('awaiting-approval');
    expect(e.tools.calls).not.toContain('change_thing:alpha');
    expect(e.tools.calls).toContain('check_thing:alpha');

    expect(fires.map((fire) => fire.runId)).toContain(checkRun.id);
    expect(e.planner.requests).toHaveLength(0);
  });
});
