import { describe, expect, it } from 'vitest';
import { namingApprovers, withApproversNamed } from '../../src/agent/decisions/decision-refusals.ts';
import { person, setting, words } from '../../src/agent/text/text.ts';
import { mrkdwn } from '../../src/bot/views/text.ts';

const said = (text: Parameters<typeof mrkdwn>[0]) => mrkdwn(text);

describe('refusals name the approvers, not the setting', () => {
  it('"approvers (setting)" becomes the people and groups on the list', () => {
    const text = words`Only approvers (${setting('approvers')}) may approve a plan; you are not on the list.`;
    expect(said(namingApprovers(text, ['U1', 'U2']))).toBe('Only <@U1> or <@U2> may approve a plan; you are not on the list.');
    expect(said(namingApprovers(text, ['U1', 'U2', 'SOPS']))).toBe('Only <@U1>, <@U2> or <!subteam^SOPS> may approve a plan; you are not on the list.');
    expect(said(namingApprovers(text, ['U1']))).toBe('Only <@U1> may approve a plan; you are not on the list.');
  });

  it('"or an approver", "Only an approver" and "ask an approver" name them too; "an approver other than…" stays', () => {
    expect(said(namingApprovers(words`Only ${person('UREQ')} (who asked) or an approver may cancel this run.`, ['U1', 'U2']))).toBe(
      'Only <@UREQ> (who asked) or <@U1> or <@U2> may cancel this run.',
    );
    expect(
      said(
        namingApprovers('Only an approver can choose how this run goes on, and you are not one. Ask an approver; ask an approver to answer here.', [
          'U1',
          'U2',
        ]),
      ),
    ).toBe('Only <@U1> or <@U2> can choose how this run goes on, and you are not one of them. Ask an approver; ask <@U1> or <@U2> to answer here.');
    const fourEyes = 'This plan has a destructive step, so an approver other than the person who asked must approve it.';
    expect(namingApprovers(fourEyes, ['U1'])).toEqual([fourEyes]);
  });

  it('keeps the words when the list is empty or longer than five', () => {
    const text = words`Only approvers (${setting('approvers')}) may approve a plan.`;
    expect(namingApprovers(text, [])).toBe(text);
    expect(namingApprovers(text, ['U1', 'U2', 'U3', 'U4', 'U5', 'U6'])).toBe(text);
    expect(said(namingApprovers(text, ['U1', 'U2', 'U3', 'U4', 'U5']))).toBe('Only <@U1>, <@U2>, <@U3>, <@U4> or <@U5> may approve a plan.');
  });

  it('applies to refused results, refused follow-ups and edit problems when the settings decide, never under a policy file', () => {
    const engine = (fromSettings: boolean) => ({ current: () => ({ fromSettings }) }) as unknown as Parameters<typeof withApproversNamed>[0]['policy'];
    const settings = { policy: engine(true), approvers: ['U1'] };
    const refusal = { code: 'not-approver', message: words`Only approvers (${setting('approvers')}) may approve a plan.` };
    expect(said(withApproversNamed(settings, { ok: false, error: refusal }).error.message)).toBe('Only <@U1> may approve a plan.');
    expect(said(withApproversNamed(settings, { refused: refusal }).refused.message)).toBe('Only <@U1> may approve a plan.');
    expect(said(withApproversNamed(settings, { ok: false, error: [refusal] }).error[0]!.message)).toBe('Only <@U1> may approve a plan.');
    expect(withApproversNamed({ policy: engine(false), approvers: ['U1'] }, { ok: false, error: refusal }).error).toBe(refusal);
    expect(withApproversNamed(settings, 'answered')).toBe('answered');
  });
});
