import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunStore, openDatabase } from '../../src/store/index.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackDriver, SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { prepareTandemFolder } from '../helpers/tandem-folder.ts';
import { runTandem, type TandemProcess } from './tandem-process.ts';

const TOKEN = 'xoxb-restart-test';
const SECRET = 'restart-signing-secret';
const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-restart-'));

// A read-only runbook with a step long enough to be interrupted, so no model is needed.
const RUNBOOK = `name: settle
pattern: "let it settle"
plan:
  goal: Let the system settle
  confidence: 0.9
  steps:
    - id: s1
      title: Wait for things to settle
      tool: wait
      args: { seconds: 4 }
    - id: s2
      title: Wait once more
      tool: wait
      args: { seconds: 1 }
      dependsOn: [s1]
`;

describe('a Tandem process stopped mid-run', () => {
  const fake = new SlackFakeServer({ token: TOKEN });
  let database: TestDatabase | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await fake.start();
    ({ env, database } = await prepareTandemFolder({
      cwd,
      slack: { token: TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl },
      runbooks: { 'settle.yml': RUNBOOK },
    }));
  });
  afterAll(async () => {
    await fake.stop();
    await database?.destroy();
    rmSync(cwd, { recursive: true, force: true });
  });

  const start = async (): Promise<{ tandem: TandemProcess; driver: SlackDriver }> => {
    const tandem = runTandem(['start'], env, cwd);
    const running = await tandem.waitForLog('Tandem is running', 60_000);
    return { tandem, driver: new SlackDriver({ eventsUrl: `http://127.0.0.1:${running.port}/slack/events`, signingSecret: SECRET, fake }) };
  };

  it('on SIGTERM records where it was, exits cleanly, and the next start finishes the run', async () => {
    const first = await start();
    await first.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
    const planMessage = () => fake.model.messages.find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));
    await fake.waitUntil(() => planMessage() !== undefined, 20_000, 'the plan message');
    const plan = planMessage()!;
    const thread = () => fake.model.thread('C1', plan.threadTs ?? plan.ts);
    await first.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'U2');
    await fake.waitUntil(() => thread().some((m) => /running/i.test(m.text ?? '')), 20_000, 'the board to show a running step');

    first.tandem.child.kill('SIGTERM');
    expect(await first.tandem.exited).toBe(0);

    // Read the store the way an operator would see it: the run is still executing, nothing lost.
    const inspect = database ? await openDatabase({ url: database.url! }) : await openDatabase({ dataDir: env.DATA_DIR! });
    const store = createRunStore(inspect.db);
    const [run] = await store.listRuns({ limit: 5 });
    expect(run?.status).toBe('executing');
    await inspect.close();

    const second = await start();
    try {
      await fake.waitUntil(
        () => thread().some((m) => /^Succeeded: Let the system settle \(2\/2 steps done\)/.test(m.text ?? '')),
        30_000,
        'the board of the resumed run to end succeeded',
      );
    } finally {
      second.tandem.child.kill('SIGTERM');
      expect(await second.tandem.exited).toBe(0);
    }
    const after = database ? await openDatabase({ url: database.url! }) : await openDatabase({ dataDir: env.DATA_DIR! });
    const finished = await createRunStore(after.db).getRun(run!.id);
    const steps = await createRunStore(after.db).listSteps(run!.id);
    await after.close();
    expect(finished?.status).toBe('succeeded');
    expect(steps.map((s) => [s.stepId, s.status])).toEqual([
      ['s1', 'succeeded'],
      ['s2', 'succeeded'],
    ]);
  }, 180_000);
});
