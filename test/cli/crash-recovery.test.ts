/**
 * kill -9 of the real process at the moments where an acknowledged request or an owed message could
 * be lost, then a restart on the same store: every thread ends right, once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackDriver, SlackFakeServer, type RecordedCall } from '../../src/workspace/slack-fake/index.ts';
import { DEFAULT_ENGINE, type TestDatabase } from '../helpers/database.ts';
import { prepareTandemFolder } from '../helpers/tandem-folder.ts';
import { runTandem, type TandemProcess } from './tandem-process.ts';

const TOKEN = 'xoxb-crash-test';
const SECRET = 'crash-signing-secret';
const GOAL = 'Let the system settle';
const RUNBOOK = `name: settle
pattern: "let it settle"
plan:
  goal: ${GOAL}
  confidence: 0.9
  steps:
    - id: s1
      title: Wait for things to settle
      tool: wait
      args: { seconds: 1 }
    - id: s2
      title: Wait once more
      tool: wait
      args: { seconds: 1 }
      dependsOn: [s1]
`;

describe('a Tandem process killed with SIGKILL', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-crash-'));
  const fake = new SlackFakeServer({ token: TOKEN });
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let current: { tandem: TandemProcess; driver: SlackDriver } | undefined;

  beforeAll(async () => {
    await fake.start();
    ({ env, database } = await prepareTandemFolder({
      cwd,
      slack: { token: TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl },
      runbooks: { 'settle.yml': RUNBOOK },
    }));
  });
  afterAll(async () => {
    if (current?.tandem.child.exitCode === null) current.tandem.child.kill('SIGKILL');
    await fake.stop();
    await database?.destroy();
    rmSync(cwd, { recursive: true, force: true });
  });

  const start = async () => {
    const tandem = runTandem(['start'], { LOG_LEVEL: 'info', ...env }, cwd);
    const running = await tandem.waitForLog('Tandem is running', 60_000);
    current = { tandem, driver: new SlackDriver({ eventsUrl: `http://127.0.0.1:${running.port}/slack/events`, signingSecret: SECRET, fake }) };
    return current;
  };
  const kill = async (tandem: TandemProcess) => {
    tandem.child.kill('SIGKILL');
    await tandem.exited;
  };
  /** Kills the process the moment the fake Slack records a matching call: Slack has it, the process never hears back. */
  const killOnCall = (tandem: TandemProcess, matches: (call: RecordedCall) => boolean) =>
    new Promise<void>((resolve) => {
      const stop = fake.onCall((call) => {
        if (!matches(call)) return;
        stop();
        tandem.child.kill('SIGKILL');
        void tandem.exited.then(() => resolve());
      });
    });

  const thread = (threadTs: string) => fake.model.thread('C1', threadTs).filter((m) => m.user === fake.model.bot.userId);
  const plans = (threadTs: string) =>
    thread(threadTs).filter((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION) || /Approved by/.test(JSON.stringify(m.blocks ?? '')));
  const boards = (threadTs: string) => thread(threadTs).filter((m) => /steps done\)$/.test(m.text));
  const summaries = (threadTs: string) => thread(threadTs).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'));
  const planMessage = (threadTs: string) => thread(threadTs).find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));

  /** The thread ended right, once: one plan, one board showing the run succeeded, one summary. */
  const endsRightOnce = async (threadTs: string) => {
    await fake.waitUntil(
      () => summaries(threadTs).length > 0 && boards(threadTs).some((m) => m.text.startsWith('Succeeded:')),
      60_000,
      'the summary and the final board',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a second copy would come now
    expect(plans(threadTs)).toHaveLength(1);
    expect(boards(threadTs).map((m) => m.text)).toEqual([`Succeeded: ${GOAL} (2/2 steps done)`]);
    expect(summaries(threadTs).map((m) => m.text)).toEqual([`:white_check_mark: Succeeded: ${GOAL}`]);
  };

  /** On PostgreSQL: writes to runs wait, so the process is surely killed after the ack and before the request's work is stored. */
  const holdRunsTable = async (): Promise<() => Promise<void>> => {
    if (!database) return async () => undefined;
    const admin = postgres(database.url!, { max: 1, onnotice: () => {} });
    const connection = await admin.reserve();
    await connection`begin`;
    await connection`lock table runs in exclusive mode`;
    return async () => {
      await connection`rollback`;
      connection.release();
      await admin.end();
    };
  };

  const approveAndFinish = async (life: { driver: SlackDriver }, threadTs: string) => {
    await fake.waitUntil(() => planMessage(threadTs) !== undefined, 30_000, 'the plan');
    await life.driver.clickButtonIn(planMessage(threadTs)!, PLAN_APPROVE_ACTION, 'U2');
  };

  it('right after a mention was acknowledged: the next start handles it, once', async () => {
    const first = await start();
    const release = await holdRunsTable();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    expect((await sent).status).toBe(200);
    await kill(first.tandem);
    await release();

    const second = await start();
    await approveAndFinish(second, sent.ts);
    await endsRightOnce(sent.ts);
    await kill(second.tandem);
  }, 180_000);

  it('right after an Approve click was acknowledged: the next start runs the plan, once', async () => {
    const first = await start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await fake.waitUntil(() => planMessage(sent.ts) !== undefined, 30_000, 'the plan');
    const release = await holdRunsTable();
    const click = await first.driver.clickButtonIn(planMessage(sent.ts)!, PLAN_APPROVE_ACTION, 'U2');
    expect(click.status).toBe(200);
    await kill(first.tandem);
    await release();

    const second = await start();
    await endsRightOnce(sent.ts);
    // The click was stored without the plan message's blocks; handled again, it still takes the buttons away.
    const plan = plans(sent.ts)[0]!;
    expect(JSON.stringify(plan.blocks)).toContain('Approved by');
    expect(JSON.stringify(plan.blocks)).not.toContain(PLAN_APPROVE_ACTION);
    await kill(second.tandem);
  }, 180_000);

  it('between the last step and the summary: the next start posts the final board and the summary, once', async () => {
    const first = await start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(first, sent.ts);
    // The board's final edit goes out just before the summary: the run is over in the store, the thread does not say so yet.
    await killOnCall(first.tandem, (call) => call.method === 'chat.update' && (call.params.text ?? '').startsWith('Succeeded:'));
    expect(summaries(sent.ts)).toHaveLength(0);

    const second = await start();
    await endsRightOnce(sent.ts);
    await kill(second.tandem);
  }, 180_000);

  it('after the summary reached Slack but before it was marked sent: the next start does not post it again', async () => {
    const first = await start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(first, sent.ts);
    await killOnCall(first.tandem, (call) => call.method === 'chat.postMessage' && (call.params.text ?? '').startsWith(':white_check_mark: Succeeded'));

    const second = await start();
    await second.tandem.waitForLog('Tandem is running');
    await endsRightOnce(sent.ts);
    await kill(second.tandem);
  }, 180_000);

  it("right when Slack stored the board's first post: the next start finds that board and edits it", async () => {
    const first = await start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await fake.waitUntil(() => planMessage(sent.ts) !== undefined, 30_000, 'the plan');
    // The board is in the thread; its ts never reached the store.
    const killed = killOnCall(first.tandem, (call) => call.method === 'chat.postMessage' && /steps done\)$/.test(call.params.text ?? ''));
    await first.driver.clickButtonIn(planMessage(sent.ts)!, PLAN_APPROVE_ACTION, 'U2');
    await killed;
    expect(boards(sent.ts)).toHaveLength(1);

    const second = await start();
    await endsRightOnce(sent.ts);
    await kill(second.tandem);
  }, 180_000);

  it('during a board edit: the next start finishes the run on the same board', async () => {
    const first = await start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(first, sent.ts);
    await killOnCall(first.tandem, (call) => call.method === 'chat.update' && (call.params.text ?? '').startsWith('Running'));

    const second = await start();
    await endsRightOnce(sent.ts);
    await kill(second.tandem);
  }, 180_000);

  it.runIf(DEFAULT_ENGINE === 'postgres')(
    'with two replicas: a mention acknowledged by one that is then killed is handled by the other, once',
    async () => {
      const first = await start();
      const second = await start();
      const release = await holdRunsTable();
      const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
      expect((await sent).status).toBe(200);
      await kill(first.tandem);
      await release();

      // Nobody restarts the killed replica: the other one sees its process is gone and takes the request over.
      await approveAndFinish(second, sent.ts);
      await endsRightOnce(sent.ts);
      await kill(second.tandem);
    },
    180_000,
  );
});
