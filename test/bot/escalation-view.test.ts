/** The escalation message for every kind, open and answered: plain data in, blocks out, checked against Slack's limits. */
import { describe, expect, it } from 'vitest';
import type { EscalationAnswer, EscalationRecord } from '../../src/agent/ports/run-store.ts';
import type { EscalationOffer } from '../../src/agent/ports/surface.ts';
import { decodeEscalationRef, decodePlanRef } from '../../src/bot/views/button-values.ts';
import { ESCALATION_ACTIONS, ESCALATION_HEADLINE_BLOCK, escalationMessage, resolvedEscalationMessage } from '../../src/bot/views/run/escalation.ts';
import { MessageBlocksSchema, type MessageBlock } from '../../src/bot/views/limits.ts';
import { PLAN_MODIFY_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { makeEscalation, makeOffer } from '../fakes/slack-fixtures.ts';
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import { targetConfirmationMessages } from '../../src/bot/views/run/target-confirmation.ts';

const text = (blocks: MessageBlock[]) => JSON.stringify(blocks);
/** The answers' buttons (Reassign, on every wait for a person, has its own test in reassign-view.test.ts). */
const buttons = (blocks: MessageBlock[]) =>
  blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).filter((button) => button.action_id !== REASSIGN_ACTION);
const labels = (blocks: MessageBlock[]) => buttons(blocks).map((b) => (b as { text: { text: string } }).text.text);
const explanation = (blocks: MessageBlock[]) => {
  const last = blocks.at(-1)!;
  return last.type === 'context' ? JSON.stringify(last) : '';
};

function expectWithinLimits(blocks: MessageBlock[]) {
  const result = MessageBlocksSchema.safeParse(blocks);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

/** Each kind as the agent offers it (execution/escalation-offer.ts), with the labels its buttons must carry. */
const KINDS: [EscalationRecord['kind'], Partial<EscalationRecord>, Partial<EscalationOffer>, string[]][] = [
  [
    'step-failed',
    {},
    { happened: '“Deploy acme/api” failed: the workflow concluded failure.', stepTitle: 'Deploy acme/api', changed: ['Open acme/api#42'] },
    ['Retry', 'Skip', 'Replan', 'Abort'],
  ],
  ['evaluation-failed', {}, {}, ['Retry', 'Skip', 'Replan', 'Abort']],
  [
    'uncertain-side-effect',
    {},
    { happened: '“Merge acme/api#7” may or may not have taken effect: the connection was reset.' },
    ['Retry', 'Skip', 'Replan', 'Abort'],
  ],
  [
    'low-confidence',
    { stepId: null },
    {
      answers: ['approve', 'modify', 'reject'],
      stepTitle: null,
      onHold: [],
      happened: 'The planner is not confident in this plan (2 steps), so nothing has run yet.',
      plan: { version: 3 },
    },
    ['Approve anyway', 'Modify', 'Reject'],
  ],
  [
    'replan-failed',
    { stepId: 's2' },
    {
      answers: ['retry', 'skip', 'replan', 'abort'],
      stepTitle: 'Check CI',
      happened: '“Check CI” failed: 502, and the planner could not make a new plan for the rest of the work.',
    },
    ['Retry', 'Skip', 'Replan', 'Abort'],
  ],
  [
    'replan-failed',
    { stepId: null },
    { answers: ['replan', 'abort'], stepTitle: null, happened: 'The planner could not make a new plan for the rest of the work.' },
    ['Replan', 'Abort'],
  ],
  [
    'not-approved',
    { stepId: null },
    { answers: ['replan', 'abort'], stepTitle: null, happened: 'This plan version changed after it was approved, so nothing was started.' },
    ['Replan', 'Abort'],
  ],
  ['budget', { stepId: null }, { answers: ['abort'], stepTitle: null, happened: 'The run reached one of its limits.' }, ['Abort']],
];

describe('an open escalation, by kind', () => {
  it.each(KINDS)('%s offers exactly its answers, each explained once, within limits', (kind, record, offerOverrides, expected) => {
    const escalation = makeEscalation({ kind, ...record, planVersion: 3 });
    const offer = makeOffer({ ...offerOverrides });
    const view = escalationMessage({ escalation, offer, escalateTo: 'SONCALL' });
    expectWithinLimits(view.blocks);
    expect(labels(view.blocks)).toEqual(expected);
    expect(view.text.startsWith('<!subteam^SONCALL>')).toBe(true);
    // Each answer is explained once, in one line under the buttons.
    for (const label of expected) expect(explanation(view.blocks).split(`*${label}*`)).toHaveLength(2);
    expect(view.blocks.filter((b) => b.type === 'context')).toHaveLength(1);
    // The message says what happened, what changed and what waits; no step ids, settings or thresholds.
    expect(text(view.blocks)).not.toMatch(/TANDEM_|threshold|\(step s\d|`s\d`/);
    for (const button of buttons(view.blocks)) {
      const { action_id: actionId, value } = button as { action_id: string; value: string };
      if (actionId === PLAN_MODIFY_ACTION) expect(decodePlanRef(value)).toEqual({ runId: 'run_1', planVersion: 3 });
      else expect(decodeEscalationRef(value)).toBe('esc_1');
    }
  });

  it('a failed step names the step, what already changed and what waits, in one section', () => {
    const view = escalationMessage({
      escalation: makeEscalation({ kind: 'step-failed' }),
      offer: makeOffer({
        happened: '“Deploy acme/api” failed: the workflow concluded failure.',
        stepTitle: 'Deploy acme/api',
        changed: ['Open acme/api#42'],
        onHold: ['Tell #ops'],
      }),
      escalateTo: undefined,
    });
    const said = view.blocks.find((b) => b.type === 'section' && !('block_id' in b && b.block_id === ESCALATION_HEADLINE_BLOCK));
    expect(JSON.stringify(said)).toContain(
      '“Deploy acme/api” failed: the workflow concluded failure. Already changed: Open acme/api#42. On hold until someone answers: Tell #ops.',
    );
    expect(explanation(view.blocks)).toContain('*Retry* runs “Deploy acme/api” again');
  });

  it('Abort says it undoes what succeeded only when the plan has rollback steps for it', () => {
    const without = escalationMessage({
      escalation: makeEscalation(),
      offer: makeOffer({ changed: ['Open acme/api#42'], abortRollsBack: false }),
      escalateTo: undefined,
    });
    expect(explanation(without.blocks)).toContain('*Abort* stops the run; what already changed stays');
    expect(text(without.blocks)).not.toMatch(/roll(s|ed)? back|undoes/);
    const withRollback = escalationMessage({
      escalation: makeEscalation(),
      offer: makeOffer({ changed: ['Open acme/api#42'], abortRollsBack: true }),
      escalateTo: undefined,
    });
    expect(explanation(withRollback.blocks)).toContain('*Abort* stops the run and undoes what succeeded');
  });

  it('no Replan button when the offer leaves it out (no model configured, no budget, a failure no plan can fix)', () => {
    const view = escalationMessage({
      escalation: makeEscalation({ kind: 'step-failed' }),
      offer: makeOffer({ answers: ['retry', 'skip', 'abort'] }),
      escalateTo: undefined,
    });
    expect(labels(view.blocks)).toEqual(['Retry', 'Skip', 'Abort']);
    expect(text(view.blocks)).not.toContain('Replan');
  });

  it('a refused rollback step only informs: no buttons and nothing to explain', () => {
    const view = escalationMessage({
      escalation: makeEscalation({ kind: 'not-approved' }),
      offer: makeOffer({ answers: [], happened: 'The rollback step “Delete the tag” was not run: its plan changed after it was approved.' }),
      escalateTo: 'SONCALL',
    });
    expect(buttons(view.blocks)).toEqual([]);
    expect(view.blocks.some((b) => b.type === 'context')).toBe(false);
    expectWithinLimits(view.blocks);
  });

  it('a reminder says so above the rest; long titles and many waiting steps stay within limits', () => {
    const long = 'x'.repeat(200);
    const view = escalationMessage({
      escalation: makeEscalation({ kind: 'step-failed' }),
      offer: makeOffer({
        note: 'Still waiting for a decision: this has been open for 60 minutes.',
        stepTitle: long,
        happened: `“${long}” failed: ${'<&>'.repeat(2000)}`,
        changed: Array.from({ length: 40 }, (_, i) => `${long} ${i}`),
        onHold: Array.from({ length: 40 }, (_, i) => `${long} ${i}`),
      }),
      escalateTo: 'SONCALL',
    });
    expect(view.blocks[0]).toMatchObject({ type: 'context' });
    expect(text(view.blocks)).toContain('Still waiting for a decision');
    expect(text(view.blocks)).toContain('and 35 more');
    expectWithinLimits(view.blocks);
    expect(view.text.length).toBeLessThanOrEqual(300);
  });
});

describe('an answered escalation, by kind', () => {
  const answered: [EscalationRecord['kind'], EscalationAnswer, string][] = [
    ['step-failed', 'retry', 'Retried by <@UANA>'],
    ['step-failed', 'skip', 'Skipped by <@UANA>'],
    ['evaluation-failed', 'replan', 'Replan asked for by <@UANA>'],
    ['uncertain-side-effect', 'abort', 'Aborted by <@UANA>'],
    ['low-confidence', 'approve', 'Approved anyway by <@UANA>'],
    ['low-confidence', 'reject', 'Rejected by <@UANA>'],
    ['replan-failed', 'try-again', 'Tried again by <@UANA>'],
    ['not-approved', 'abort', 'Aborted by <@UANA>'],
    ['budget', 'abort', 'Aborted by <@UANA>'],
  ];
  it.each(answered)('%s answered %s collapses to one line saying who chose what', (kind, answer, line) => {
    const open = escalationMessage({ escalation: makeEscalation({ kind }), offer: makeOffer({ answers: [answer] }), escalateTo: 'SONCALL' });
    const headline = open.blocks.find((b) => 'block_id' in b && b.block_id === ESCALATION_HEADLINE_BLOCK) as { text: { text: string } };
    const view = resolvedEscalationMessage({ headline: headline.text.text, answer, userId: 'UANA' });
    expect(view.blocks).toHaveLength(1);
    expect(text(view.blocks)).toContain(`: Check CI on acme/api#42 — ${line}`);
    expect(text(view.blocks)).not.toContain('rotating_light');
    expect(buttons(view.blocks)).toEqual([]);
    expectWithinLimits(view.blocks);
  });

  it('without the open message at hand it still says who chose what', () => {
    const view = resolvedEscalationMessage({ headline: undefined, answer: 'retry', userId: 'UANA' });
    expect(view.blocks).toEqual([{ type: 'context', elements: [{ type: 'mrkdwn', text: ':ballot_box_with_check: Retried by <@UANA>' }] }]);
  });
});

it('every escalation button has an action id of its own', () => {
  expect(new Set(Object.values(ESCALATION_ACTIONS)).size).toBe(Object.keys(ESCALATION_ACTIONS).length);
});

describe('notification text (what a phone shows, read as mrkdwn too)', () => {
  const TITLE = 'Tell <!channel> & <@U1> <http://evil.example|docs>';
  const SHOWN = 'Tell &lt;!channel&gt; &amp; &lt;@U1&gt; &lt;http://evil.example|docs&gt;';

  it("an escalation's shows the step's title literally: it pings nobody", () => {
    const view = escalationMessage({ escalation: makeEscalation({ kind: 'step-failed' }), offer: makeOffer({ stepTitle: TITLE }), escalateTo: undefined });
    expect(view.text).toContain(SHOWN);
    expect(view.text).not.toMatch(/<!channel>|<@U1>|<http/);
  });

  it("a Confirm request's shows the step's title literally too", () => {
    const confirmation = {
      ...{ runId: 'run_1', planVersion: 1, stepId: 's1', tool: 'slack_notify', risk: 'write' as const, targets: { channel: 'C1' } },
      ...{ lateBound: ['channel'], status: 'pending' as const, stepTitle: TITLE, decidedBy: null, createdAt: new Date(0), decidedAt: null },
    };
    for (const view of targetConfirmationMessages({ confirmation, escalateTo: undefined })) {
      expect(view.text).not.toMatch(/<!channel>|<@U1>|<http/);
      if (view.text.startsWith('Confirm what')) expect(view.text).toContain(SHOWN);
    }
  });
});
