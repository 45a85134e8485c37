import { describe, expect, it } from 'vitest';
import { person, setting, type Text, words } from '../../src/agent/text/text.ts';
import { mrkdwn, plainWords, storedWords } from '../../src/bot/views/text.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { makeRun } from '../fakes/slack-fixtures.ts';

describe('agent messages as Slack text', () => {
  it('names people as mentions (users and user groups) and settings in words, never by their environment variable', () => {
    expect(mrkdwn(words`Only ${person('UREQ')} (who asked) or an approver may cancel this run.`)).toBe(
      'Only <@UREQ> (who asked) or an approver may cancel this run.',
    );
    expect(mrkdwn(words`Resolved by ${person('SOPS')}.`)).toBe('Resolved by <!subteam^SOPS>.');
    expect(mrkdwn(words`Only approvers (${setting('approvers')}) may save a runbook.`)).toBe('Only approvers may save a runbook.');
    expect(mrkdwn(words`Ask ${setting('approvers')} to save it.`)).toBe('Ask the approvers to save it.');
    expect(mrkdwn(words`To plan this, set ${setting('planner-model')} and ${setting('model-key')}.`)).toBe(
      'To plan this, set PLANNER_MODEL and OPENAI_API_KEY (or ANTHROPIC_API_KEY).',
    );
    expect(storedWords(words`the plan has 25 steps, more than ${setting('max-steps')} (${setting('max-steps')})`, 200)).toBe(
      'the plan has 25 steps, more than the step limit',
    );
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

  it('plain words (a modal field error) name people by mention syntax and settings in words, unescaped', () => {
    expect(plainWords(words`Only approvers (${setting('approvers')}) may confirm; ${person('U3')} is not one & never was.`)).toBe(
      'Only approvers may confirm; <@U3> is not one & never was.',
    );
    expect(plainWords('a < b')).toBe('a < b');
  });

  it('numbers interpolated into words become words', () => {
    expect(words`v${3} of ${person('U1')}`).toEqual(['v3 of ', { user: 'U1' }]);
  });

  it('words that name nobody are one string, and a Text quoted inside keeps its people', () => {
    expect(words`the step budget is spent (${12} attempts)`).toBe('the step budget is spent (12 attempts)');
    expect(words`replan: ${words`${person('U1')} asked for a new plan after: ${'s2 failed'}`}`).toEqual([
      'replan: ',
      { user: 'U1' },
      ' asked for a new plan after: s2 failed',
    ]);
  });
});

describe('stored words (a reason, what happened) as Slack text', () => {
  const summaryText = (reason: Text) =>
    JSON.stringify(
      summaryMessage({
        run: makeRun(),
        outcome: 'rejected',
        goal: 'g',
        reason,
        changes: [],
        rolledBack: [],
        durationMs: 1,
        tokens: { input: 0, output: 0 },
        costUsd: 0,
      }).blocks,
    );

  it('the summary mentions who ended the run, and the people in a quoted reason', () => {
    expect(summaryText(words`Rejected by ${person('U2')}.`)).toContain('Rejected by <@U2>.');
  });

  it('a stored string is all words: a tool’s text quoted in it cannot ping anyone', () => {
    expect(storedWords('s1 failed: <!channel> <@U9> & more', 100)).toBe('s1 failed: &lt;!channel&gt; &lt;@U9&gt; &amp; more');
  });

  it('a cut keeps whole mentions and whole escapes', () => {
    const text = words`${'x'.repeat(8)}${person('U123')} & after`;
    expect(storedWords(text, 9)).toBe(`${'x'.repeat(8)}<@U123>…`);
    expect(storedWords('a & b', 3)).toBe('a …');
    expect(storedWords('a & b', 4)).toBe('a &amp;…');
  });
});
