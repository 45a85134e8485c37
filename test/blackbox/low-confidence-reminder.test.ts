/**
 * Every wait is re-pinged once (contract §5). A plan below the confidence threshold is one decision, though it waits
 * as a plan to approve and as an escalation: it gets one reminder, the plan's, which says when it expires.
 */
import { describe, expect, it } from 'vitest';
import { botMessages, visibleText, waitFor } from './harness.ts';
import { plan, step } from './plans.ts';
import { useStack } from './stack.ts';
import { openAiReply } from '../fakes/openai-server.ts';

const stack = useStack({ env: () => ({ TANDEM_REMIND_AFTER_S: '2', TANDEM_APPROVAL_TTL_S: '3600' }) });
const SWEEP_MS = 1_000;

describe('a low-confidence plan', () => {
  it('is reminded once, with when it expires', async () => {
    const { slack } = stack;
    const channel = 'C86';
    stack.openai.enqueue(openAiReply.json(plan('Announce', [step('s1', 'Announce', 'slack_notify', { channel: 'C87', text: 'hi' })], { confidence: 0.3 })));
    const sent = stack.tandem.driver.mention({ channel, user: 'U1', text: '<@UBOT> announce' });
    await sent;
    const texts = () => botMessages(slack, channel, sent.ts).map(visibleText);
    await waitFor(slack, () => texts().some((text) => text.includes('expires in')), 'the reminder', 30_000);
    // The escalation's own reminder is due at the same time: had it been sent, the sweep that sent the plan's would
    // have sent it too, or the next. Three sweeps (every second here: half of TANDEM_REMIND_AFTER_S,
    // src/runtime/housekeeping.ts), then whatever they started is delivered.
    await new Promise((resolve) => setTimeout(resolve, 3 * SWEEP_MS));
    await stack.tandem.untilIdle();
    expect(texts().filter((text) => text.includes('expires in'))).toHaveLength(1);
    expect(texts().filter((text) => text.includes('Still waiting for a decision'))).toEqual([]);
  });
});
