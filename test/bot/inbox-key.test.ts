import { describe, expect, it } from 'vitest';
import { inboxKey, storableBody } from '../../src/bot/ingress/inbox-key.ts';

const click = {
  type: 'block_actions',
  token: 'legacy-verification-token',
  trigger_id: '123.456.abc',
  user: { id: 'U2' },
  channel: { id: 'C1' },
  container: { type: 'message', channel_id: 'C1', message_ts: '2.000001', thread_ts: '1.000001' },
  message: { type: 'message', ts: '2.000001', thread_ts: '1.000001', text: 'Plan v1', blocks: [{ type: 'section' }, { type: 'actions', elements: [] }] },
  actions: [{ action_id: 'plan_approve', value: '{"runId":"run_1","planVersion":1}', action_ts: '3.000001' }],
};

describe('what the inbox keeps of a request', () => {
  it("keeps what a click means and leaves out the legacy token and the clicked message's blocks, which Slack holds", () => {
    const stored = storableBody(click);
    expect(stored).not.toHaveProperty('token');
    expect(stored.message).toEqual({ type: 'message', ts: '2.000001', thread_ts: '1.000001', text: 'Plan v1' });
    expect(stored).toMatchObject({
      user: click.user,
      channel: click.channel,
      container: click.container,
      actions: click.actions,
      trigger_id: click.trigger_id,
    });
    expect(inboxKey(stored)).toBe(inboxKey(click));
    expect(click.message.blocks).toHaveLength(2); // the request itself, handled now, keeps them
  });

  it('keeps an event, a command and a modal submission whole but for the token', () => {
    const event = { type: 'event_callback', token: 't', event_id: 'Ev1', event: { type: 'app_mention', text: '<@UBOT> hi', blocks: [{ type: 'rich_text' }] } };
    const submission = { type: 'view_submission', token: 't', trigger_id: 'tr', view: { id: 'V1', blocks: [{ type: 'input' }], state: { values: {} } } };
    const { token: _a, ...eventRest } = event;
    const { token: _b, ...submissionRest } = submission;
    expect(storableBody(event)).toEqual(eventRest);
    expect(storableBody(submission)).toEqual(submissionRest);
  });
});
