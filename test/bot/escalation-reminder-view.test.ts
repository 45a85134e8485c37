/**
 * An escalation's reminder, as the thread shows it (CONTRACT §5: every wait is re-pinged once): the line above
 * it says what is true of the run now, in exactly these words, with the escalation's buttons below.
 */
import { describe, expect, it } from 'vitest';
import { escalationReminderNote } from '../../src/agent/waits/wait-reminders.ts';
import { escalationMessage } from '../../src/bot/views/run/escalation.ts';
import { makeEscalation, makeOffer } from '../fakes/slack-fixtures.ts';

const reminded = (status: Parameters<typeof escalationReminderNote>[0], kind: Parameters<typeof escalationReminderNote>[1]) => {
  const view = escalationMessage({
    escalation: makeEscalation({ kind }),
    offer: makeOffer({ note: escalationReminderNote(status, kind) }),
    escalateTo: 'SOPS',
  });
  return { first: JSON.stringify(view.blocks[0]), all: JSON.stringify(view.blocks) };
};

describe("an escalation's reminder line", () => {
  it('of a run that goes on: what depends on the step waits, and the rest of the run goes on', () => {
    const { first } = reminded('executing', 'step-failed');
    expect(first).toContain(
      ':alarm_clock: Still waiting for a decision; what depends on this step waits until someone picks an action, and the rest of the run goes on.',
    );
  });

  it('of a paused run: the run stays paused', () => {
    const { first, all } = reminded('paused', 'evaluation-failed');
    expect(first).toContain(':alarm_clock: Still waiting for a decision; the run stays paused until someone picks an action.');
    expect(all).not.toContain('the rest of the run goes on');
  });

  it('of a failed undo (rolling back, or after the run ended): someone must undo it by hand, and the rollback goes on', () => {
    for (const status of ['rolling-back', 'aborted'] as const) {
      const { first, all } = reminded(status, 'rollback-failed');
      expect(first).toContain(':alarm_clock: Still waiting for someone to undo it by hand; the rest of the rollback goes on.');
      expect(all).not.toContain('picks an action');
    }
  });
});
