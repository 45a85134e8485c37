import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { eventually, silentLogger, startSlackHarness, type SlackHarness } from '../fakes/slack-harness.ts';
import { makeBoard, makePlan, makeProposal, makeRun } from '../fakes/slack-fixtures.ts';

/** A goal written from a stranger's words (an issue title pasted into the task). */
const GOAL = '<!channel> deploy <https://evil.example|the fix> for <@U0BOSS>';
const ESCAPED = '&lt;!channel&gt; deploy &lt;https://evil.example|the fix&gt; for &lt;@U0BOSS&gt;';

let h: SlackHarness;
let surface: SlackSurface;
const run = makeRun();

beforeAll(async () => {
  h = await startSlackHarness();
  surface = new SlackSurface({ client: h.slack.client, logger: silentLogger(), escalateTo: 'SOPS', boardIntervalMs: 0 });
  h.runs.runs.push(run);
});
afterAll(() => h.stop());

describe("the fallback text of the bot's messages (what notifications and old clients show)", () => {
  it("escapes the goal of the plan, the status board and the summary: no mention or link from a stranger's words", async () => {
    const plan = { ...makePlan(2), goal: GOAL };
    await surface.proposePlan(makeProposal(plan));
    await surface.reportProgress(run, makeBoard(plan));
    await surface.finish({
      run,
      outcome: 'succeeded',
      goal: GOAL,
      reason: null,
      changes: [],
      rolledBack: [],
      durationMs: 1000,
      tokens: { input: 1, output: 1 },
      costUsd: 0,
    });
    await eventually(() => expect(h.fake.model.messages.length).toBeGreaterThanOrEqual(3));
    const texts = h.fake.model.messages.map((message) => message.text);
    for (const text of texts) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<https://evil.example');
      expect(text).not.toContain('<@U0BOSS>');
    }
    expect(texts.filter((text) => text.includes(ESCAPED))).toHaveLength(3);
  });
});
