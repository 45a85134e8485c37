import { mention } from './text.ts';

export const HELP_TEXT = [
  '*Tandem* plans a task, asks for approval, then runs it and reports in the thread.',
  '• Mention me with a task: `@Tandem merge PR 42 on acme/api once CI is green`',
  "• When I ask a question, click *Answer* (or mention me in the run's thread with the answer); say `cancel` there to stop the run.",
  '• `/tandem status` — runs in progress in this channel (only you see the list)',
  '• `/tandem runs` — your recent runs',
  '• `/tandem cancel &lt;runId&gt;` — stop a run (`/tandem status` shows its id)',
  '• `/tandem schedule every weekday at 09:00 &lt;task&gt;` — run a task on a schedule (also: mention me with `every …`)',
  "• `/tandem schedules` — this channel's schedules, with Remove buttons",
  '• `/tandem help` — this text',
].join('\n');

const GREETING =
  /^(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening)|hallo|hola)\b(?:[\s,]+(?:there|all|everyone|folks|team|tandem))?[\s!.?:)]*$/i;
const THANKS = /^(?:thanks|thank you|thx|ty|cheers|great|nice|awesome|perfect)\b(?:[\s,]+(?:a lot|so much|very much|again|tandem))*[\s!.:)]*$/i;

/**
 * A short friendly answer to a greeting or a thank-you, so "hello" is not planned as a task (and does
 * not fail as one). Undefined for anything else: that is a task.
 */
export function smallTalkReply(text: string, user: string): string | undefined {
  const said = text.replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, '').trim();
  if (GREETING.test(said))
    return `Hi ${mention(user)}! Mention me with a task, like \`@Tandem check CI on acme/api\`, and I'll plan it for you to approve. \`/tandem help\` shows what else I do.`;
  return thanksReply(said);
}

/** "thanks" gets "You're welcome!"; anything else undefined. */
export function thanksReply(text: string): string | undefined {
  return THANKS.test(text.replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, '').trim()) ? "You're welcome!" : undefined;
}
