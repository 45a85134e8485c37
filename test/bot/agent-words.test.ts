import { describe, expect, it } from 'vitest';
import { person, setting, words } from '../../src/agent/text.ts';
import { mrkdwn, plainWords } from '../../src/bot/views/text.ts';

describe('agent messages as Slack text', () => {
  it('names people as mentions (users and user groups) and settings by their environment variable', () => {
    expect(mrkdwn(words`Only ${person('UREQ')} (who asked) or an approver may cancel this run.`)).toBe(
      'Only <@UREQ> (who asked) or an approver may cancel this run.',
    );
    expect(mrkdwn(words`Resolved by ${person('SOPS')}.`)).toBe('Resolved by <!subteam^SOPS>.');
    expect(mrkdwn(words`Only approvers (${setting('approvers')}) may save a runbook.`)).toBe('Only approvers (TANDEM_APPROVERS) may save a runbook.');
  });

  it('escapes <, > and & in the words around a person, so text from a tool or a person cannot become markup', () => {
    const text = words`Aborted by ${person('U1')} after: <!channel> & <https://evil.example|click> > 2`;
    expect(mrkdwn(text)).toBe('Aborted by <@U1> after: &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt; &gt; 2');
  });

  it('a person’s id never carries markup in: an id with < or > is escaped, not spliced', () => {
    expect(mrkdwn([{ user: 'U1> <!here' }])).toBe('<@U1&gt; &lt;!here>');
  });

  it('a message that is one string keeps the mentions written into it and escapes everything else', () => {
    expect(mrkdwn('Rejected by <@U2>: a < b & <!channel>')).toBe('Rejected by <@U2>: a &lt; b &amp; &lt;!channel&gt;');
  });

  it('plain words (a modal field error) name people by mention syntax and settings by variable, unescaped', () => {
    expect(plainWords(words`Only approvers (${setting('approvers')}) may confirm; ${person('U3')} is not one & never was.`)).toBe(
      'Only approvers (TANDEM_APPROVERS) may confirm; <@U3> is not one & never was.',
    );
    expect(plainWords('a < b')).toBe('a < b');
  });

  it('numbers interpolated into words become words', () => {
    expect(words`v${3} of ${person('U1')}`).toEqual(['v', '3', ' of ', { user: 'U1' }]);
  });
});
