import type { AnyMiddlewareArgs } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { FEEDBACK_ACTION } from '../../src/bot/views/run/feedback.ts';
import { formatFeedback } from '../../src/cli/feedback-command.ts';
import { formatRunDetail } from '../../src/cli/format-run.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { storedFeedback } from '../../src/runtime/stored-feedback.ts';
import { feedbackByAuthor, listFeedback } from '../../src/store/index.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlan, isSummary } from '../fakes/thread-messages.ts';

/** Slack's feedback buttons on a run's summary, kept with the run and counted. */
const db = useTestStore();
let e: SlackE2E;
let metrics: Metrics;
beforeEach(async () => {
  metrics = createMetrics();
  e = await startSlackE2E(db.store, { feedback: storedFeedback(db.database.db, metrics) });
});
afterEach(() => e.stop());

type FeedbackButtons = { type: string; action_id: string; positive_button: { value: string }; negative_button: { value: string } };
function feedbackButtons(summary: FakeMessage): FeedbackButtons {
  const block = (summary.blocks ?? []).find((b) => (b as { type?: string }).type === 'context_actions') as
    { block_id: string; elements: FeedbackButtons[] } | undefined;
  if (!block) throw new Error('no feedback buttons on the summary');
  return block.elements[0]!;
}

const press = (summary: FakeMessage, user: string, which: 'positive_button' | 'negative_button') =>
  e.driver.click({
    user,
    channel: summary.channel,
    messageTs: summary.ts,
    threadTs: summary.threadTs,
    actionId: FEEDBACK_ACTION,
    value: feedbackButtons(summary)[which].value,
    blockId: 'summary-feedback',
  });

/**
 * Makes the first feedback click's handling slow, as a slow Slack or store call would: it waits in Bolt's
 * middleware until a second feedback click has been handled, or 500 ms.
 */
function slowFirstFeedbackClick(): void {
  let secondHandled!: () => void;
  const second = new Promise<void>((resolve) => (secondHandled = resolve));
  let clicks = 0;
  e.slack.app.use(async ({ body, next }: AnyMiddlewareArgs & { next: () => Promise<void> }) => {
    const actions = (body as { actions?: { action_id?: string }[] }).actions;
    if (actions?.[0]?.action_id !== FEEDBACK_ACTION) return next();
    clicks += 1;
    const which = clicks;
    if (which === 1) await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 500))]);
    await next();
    if (which === 2) secondHandled();
  });
}

/** A run approved and finished: its record and the summary message its feedback buttons are on. */
async function finishedRun() {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  await sent;
  const plan = await e.waitForMessage(sent.ts, isPlan, 'the plan');
  await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
  const summary = await e.waitForMessage(sent.ts, isSummary, 'the summary');
  await e.agent.idle();
  const run = (await db.store.listRuns({ limit: 50 })).find((r) => r.conversation.threadTs === sent.ts)!;
  return { run, summary };
}

/** Waits (at most 5 s) until `count` ephemeral messages were posted: the answers to the clicks. */
async function untilEphemerals(count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (e.fake.model.ephemerals.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('feedback on the summary', () => {
  it("stores each person's click once per run with the plan version and author, counts it, and shows it in tandem show", async () => {
    const { run, summary } = await finishedRun();
    expect(feedbackButtons(summary).type).toBe('feedback_buttons');

    expect((await press(summary, 'UREQ', 'positive_button')).status).toBe(200);
    expect((await press(summary, 'UAPP1', 'negative_button')).status).toBe(200);
    expect((await press(summary, 'UREQ', 'negative_button')).status).toBe(200); // a second click changes nothing
    const deadline = Date.now() + 5000;
    while ((await listFeedback(db.database.db, run.id)).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    const stored = await listFeedback(db.database.db, run.id);
    expect(stored.map((f) => [f.userId, f.value, f.planVersion, f.authorKind, f.authorId]).sort()).toEqual([
      ['UAPP1', 'bad', 1, 'runbook', 'test-runbook'],
      ['UREQ', 'good', 1, 'runbook', 'test-runbook'],
    ]);
    const exposed = await metrics.registry.metrics();
    expect(exposed).toContain('tandem_feedback_total{value="good",author_kind="runbook"} 1');
    expect(exposed).toContain('tandem_feedback_total{value="bad",author_kind="runbook"} 1');
    const byAuthor = await feedbackByAuthor(db.database.db, { authorKind: 'runbook' });
    expect(byAuthor).toContainEqual({ authorKind: 'runbook', authorId: 'test-runbook', good: 1, bad: 1 });
    expect(formatFeedback(byAuthor)).toMatch(/^runbook +test-runbook +1 good +1 bad {2}50% good$/m);
    expect(formatFeedback([{ authorKind: 'planner', authorId: 'openai:gpt-4o', good: 3, bad: 1 }])).toMatch(
      /^planner model +openai:gpt-4o +3 good +1 bad {2}75% good$/,
    );

    const shown = formatRunDetail({
      run,
      versions: [],
      approvals: [],
      steps: [],
      attempts: [],
      escalations: [],
      questions: [],
      events: [],
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      feedback: stored,
    });
    expect(shown).toMatch(/feedback:\n {2}(good|bad) from U\w+ on v1 \(runbook test-runbook\)/);
    // Each click is answered privately in the thread: noted, or that the first answer stands.
    const answers = () => e.fake.model.ephemerals.map((m) => [m.user, m.threadTs, m.text]);
    while (e.fake.model.ephemerals.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answers().sort()).toEqual([
      ['UAPP1', run.conversation.threadTs, expect.stringMatching(/^Thanks — noted: this run went badly for you/)],
      ['UREQ', run.conversation.threadTs, expect.stringMatching(/^Thanks — noted: this run went well for you/)],
      ['UREQ', run.conversation.threadTs, 'You already gave feedback on this run; your first answer is the one kept.'],
    ]);
  });

  it.each(['signed HTTP', 'Socket Mode'])(
    "one person's thumbs up then down, the first still being handled when the second comes: the first is kept, and the second is told so (%s)",
    async (connection) => {
      if (connection === 'Socket Mode') {
        await e.stop();
        e = await startSlackE2E(db.store, { feedback: storedFeedback(db.database.db, metrics), socketMode: true });
      }
      const { run, summary } = await finishedRun();
      slowFirstFeedbackClick();

      expect((await press(summary, 'UREQ', 'positive_button')).status).toBe(200);
      expect((await press(summary, 'UREQ', 'negative_button')).status).toBe(200);
      await untilEphemerals(2);

      expect((await listFeedback(db.database.db, run.id)).map((f) => [f.userId, f.value])).toEqual([['UREQ', 'good']]);
      expect(e.fake.model.ephemerals.map((m) => m.text)).toEqual([
        expect.stringMatching(/^Thanks — noted: this run went well/),
        'You already gave feedback on this run; your first answer is the one kept.',
      ]);
    },
  );

  it('a double click, or a click on an old summary of a finished run, is stored and counted once', async () => {
    const { run, summary } = await finishedRun();

    const clicks = await Promise.all([press(summary, 'UREQ', 'negative_button'), press(summary, 'UREQ', 'negative_button')]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    await untilEphemerals(2);

    expect((await listFeedback(db.database.db, run.id)).map((f) => [f.userId, f.value])).toEqual([['UREQ', 'bad']]);
    expect(await metrics.registry.metrics()).toContain('tandem_feedback_total{value="bad",author_kind="runbook"} 1');
    expect(e.fake.model.ephemerals.map((m) => m.text).sort()).toEqual([
      expect.stringMatching(/^Thanks — noted: this run went badly/),
      'You already gave feedback on this run; your first answer is the one kept.',
    ]);
  });
});
