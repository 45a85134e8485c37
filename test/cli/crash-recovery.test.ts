/**
 * kill -9 of the real process at the moments where an acknowledged request or an owed message could
 * be lost, then a restart on the same store: every thread ends right, once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackDriver, SlackFakeServer, type RecordedCall } from '../../src/workspace/slack-fake/index.ts';
import { DEFAULT_ENGINE, type TestDatabase } from '../helpers/database.ts';
import { prepareTandemFolder } from '../helpers/tandem-folder.ts';
import { untilIdle } from '../helpers/until-idle.ts';
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

/**
 * One test's world: its own fake Slack, store and working folder, so the tests run at once (each is mostly
 * waiting for the processes it starts) and no process of one test sees another's store or Slack calls: a
 * process on the same store would be a replica of the other and take over what the killed one left.
 */
/** One process's life in a world: the process, a driver that sends it Slack's requests, and its HTTP address. */
interface Life {
  tandem: TandemProcess;
  driver: SlackDriver;
  baseUrl: string;
}

interface World {
  fake: SlackFakeServer;
  database: TestDatabase | undefined;
  start(): Promise<Life>;
  /** Kills the process the moment the fake Slack records a matching call: Slack has it, the process never hears back. */
  killOnCall(tandem: TandemProcess, matches: (call: RecordedCall) => boolean): Promise<void>;
  thread(threadTs: string): ReturnType<SlackFakeServer['model']['thread']>;
}

const worlds: { world: World; cwd: string; processes: TandemProcess[] }[] = [];

async function newWorld(): Promise<World> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-crash-'));
  const fake = new SlackFakeServer({ token: TOKEN });
  await fake.start();
  const { env, database } = await prepareTandemFolder({
    cwd,
    slack: { token: TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl },
    runbooks: { 'settle.yml': RUNBOOK },
  });
  const processes: TandemProcess[] = [];
  const world: World = {
    fake,
    database,
    async start() {
      const tandem = runTandem(['start'], { LOG_LEVEL: 'info', ...env }, cwd);
      processes.push(tandem);
      const running = await tandem.waitForLog('Tandem is running', 60_000);
      const baseUrl = `http://127.0.0.1:${String(running.port)}`;
      return { tandem, baseUrl, driver: new SlackDriver({ eventsUrl: `${baseUrl}/slack/events`, signingSecret: SECRET, fake }) };
    },
    killOnCall: (tandem, matches) =>
      new Promise<void>((resolve) => {
        const stop = fake.onCall((call) => {
          if (!matches(call)) return;
          stop();
          tandem.child.kill('SIGKILL');
          void tandem.exited.then(() => resolve());
        });
      }),
    thread: (threadTs) => fake.model.thread('C1', threadTs).filter((m) => m.user === fake.model.bot.userId),
  };
  worlds.push({ world, cwd, processes });
  return world;
}

const kill = async (tandem: TandemProcess) => {
  tandem.child.kill('SIGKILL');
  await tandem.exited;
};

// Each test is mostly waiting on the processes it starts and kills: on PostgreSQL they run at once, each in a
// world of its own. On PGlite a world's first start creates its database (seconds of CPU, no waiting), and six
// of those at once only crowd each other: there the tests take turns in one world, as the store outlives a kill.
const atOnce = DEFAULT_ENGINE === 'postgres';
const inTurnOrAtOnce = atOnce ? describe.concurrent : describe;
let sharedWorld: Promise<World> | undefined;
const worldForTest = (): Promise<World> => (atOnce ? newWorld() : (sharedWorld ??= newWorld()));
inTurnOrAtOnce('a Tandem process killed with SIGKILL', () => {
  afterAll(async () => {
    for (const { world, cwd, processes } of worlds) {
      for (const tandem of processes) if (tandem.child.exitCode === null && tandem.child.signalCode === null) await kill(tandem);
      await world.fake.stop();
      await world.database?.destroy();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  const has = (blocks: unknown, text: string) => JSON.stringify(blocks ?? '').includes(text);
  const plans = (w: World, threadTs: string) =>
    w.thread(threadTs).filter((m) => has(m.blocks, PLAN_APPROVE_ACTION) || /Approved by/.test(JSON.stringify(m.blocks ?? '')));
  const boards = (w: World, threadTs: string) => w.thread(threadTs).filter((m) => /steps done\)$/.test(m.text));
  const summaries = (w: World, threadTs: string) => w.thread(threadTs).filter((m) => m.text.startsWith(':white_check_mark: Succeeded'));
  const planMessage = (w: World, threadTs: string) => w.thread(threadTs).find((m) => has(m.blocks, PLAN_APPROVE_ACTION));

  /** The thread ended right, once: one plan, one board showing the run succeeded, one summary — and nothing more once `life` is idle. */
  const endsRightOnce = async (w: World, threadTs: string, life: Life) => {
    await w.fake.waitUntil(
      () => summaries(w, threadTs).length > 0 && boards(w, threadTs).some((m) => m.text.startsWith('Succeeded:')),
      60_000,
      'the summary and the final board',
    );
    await untilIdle(life.baseUrl); // a second copy would have come by now
    expect(plans(w, threadTs)).toHaveLength(1);
    expect(boards(w, threadTs).map((m) => m.text)).toEqual([`Succeeded: ${GOAL} (2/2 steps done)`]);
    expect(summaries(w, threadTs).map((m) => m.text)).toEqual([`:white_check_mark: Succeeded: ${GOAL}`]);
  };

  /** On PostgreSQL: writes to runs wait, so the process is surely killed after the ack and before the request's work is stored. */
  const holdRunsTable = async (w: World): Promise<() => Promise<void>> => {
    if (!w.database) return async () => undefined;
    const admin = postgres(w.database.url!, { max: 1, onnotice: () => {} });
    const connection = await admin.reserve();
    await connection`begin`;
    await connection`lock table runs in exclusive mode`;
    return async () => {
      await connection`rollback`;
      connection.release();
      await admin.end();
    };
  };

  const approveAndFinish = async (w: World, life: Life, threadTs: string) => {
    await w.fake.waitUntil(() => planMessage(w, threadTs) !== undefined, 30_000, 'the plan');
    await life.driver.clickButtonIn(planMessage(w, threadTs)!, PLAN_APPROVE_ACTION, 'U2');
  };

  it('right after a mention was acknowledged: the next start handles it, once', async () => {
    const w = await worldForTest();
    const first = await w.start();
    const release = await holdRunsTable(w);
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    expect((await sent).status).toBe(200);
    await kill(first.tandem);
    await release();

    const second = await w.start();
    await approveAndFinish(w, second, sent.ts);
    await endsRightOnce(w, sent.ts, second);
    await kill(second.tandem);
  }, 180_000);

  it('right after an Approve click was acknowledged: the next start runs the plan, once', async () => {
    const w = await worldForTest();
    const first = await w.start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await w.fake.waitUntil(() => planMessage(w, sent.ts) !== undefined, 30_000, 'the plan');
    const release = await holdRunsTable(w);
    const click = await first.driver.clickButtonIn(planMessage(w, sent.ts)!, PLAN_APPROVE_ACTION, 'U2');
    expect(click.status).toBe(200);
    await kill(first.tandem);
    await release();

    const second = await w.start();
    await endsRightOnce(w, sent.ts, second);
    // The click was stored without the plan message's blocks; handled again, it still takes the buttons away.
    const plan = plans(w, sent.ts)[0]!;
    expect(JSON.stringify(plan.blocks)).toContain('Approved by');
    expect(JSON.stringify(plan.blocks)).not.toContain(PLAN_APPROVE_ACTION);
    await kill(second.tandem);
  }, 180_000);

  it('between the last step and the summary: the next start posts the final board and the summary, once', async () => {
    const w = await worldForTest();
    const first = await w.start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(w, first, sent.ts);
    // The board's final edit goes out just before the summary: the run is over in the store, the thread does not say so yet.
    await w.killOnCall(first.tandem, (call) => call.method === 'chat.update' && (call.params.text ?? '').startsWith('Succeeded:'));
    expect(summaries(w, sent.ts)).toHaveLength(0);

    const second = await w.start();
    await endsRightOnce(w, sent.ts, second);
    await kill(second.tandem);
  }, 180_000);

  it('after the summary reached Slack but before it was marked sent: the next start does not post it again', async () => {
    const w = await worldForTest();
    const first = await w.start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(w, first, sent.ts);
    await w.killOnCall(first.tandem, (call) => call.method === 'chat.postMessage' && (call.params.text ?? '').startsWith(':white_check_mark: Succeeded'));

    const second = await w.start();
    await second.tandem.waitForLog('Tandem is running');
    await endsRightOnce(w, sent.ts, second);
    await kill(second.tandem);
  }, 180_000);

  it("right when Slack stored the board's first post: the next start finds that board and edits it", async () => {
    const w = await worldForTest();
    const first = await w.start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await w.fake.waitUntil(() => planMessage(w, sent.ts) !== undefined, 30_000, 'the plan');
    // The board is in the thread; its ts never reached the store.
    const killed = w.killOnCall(first.tandem, (call) => call.method === 'chat.postMessage' && /steps done\)$/.test(call.params.text ?? ''));
    await first.driver.clickButtonIn(planMessage(w, sent.ts)!, PLAN_APPROVE_ACTION, 'U2');
    await killed;
    expect(boards(w, sent.ts)).toHaveLength(1);

    const second = await w.start();
    await endsRightOnce(w, sent.ts, second);
    await kill(second.tandem);
  }, 180_000);

  it('during a board edit: the next start finishes the run on the same board', async () => {
    const w = await worldForTest();
    const first = await w.start();
    const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    await approveAndFinish(w, first, sent.ts);
    await w.killOnCall(first.tandem, (call) => call.method === 'chat.update' && (call.params.text ?? '').startsWith('Running'));

    const second = await w.start();
    await endsRightOnce(w, sent.ts, second);
    await kill(second.tandem);
  }, 180_000);

  if (DEFAULT_ENGINE !== 'postgres')
    console.log('test/cli/crash-recovery.test.ts: the two-replica case skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');
  it.runIf(DEFAULT_ENGINE === 'postgres')(
    'with two replicas: a mention acknowledged by one that is then killed is handled by the other, once',
    async () => {
      const w = await worldForTest();
      // Started together: neither start depends on the other, and each is a second or more of waiting.
      const [first, second] = await Promise.all([w.start(), w.start()]);
      const release = await holdRunsTable(w);
      const sent = first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
      expect((await sent).status).toBe(200);
      await kill(first.tandem);
      await release();

      // Nobody restarts the killed replica: the other one sees its process is gone and takes the request over.
      await approveAndFinish(w, second, sent.ts);
      await endsRightOnce(w, sent.ts, second);
      await kill(second.tandem);
    },
    180_000,
  );
});
