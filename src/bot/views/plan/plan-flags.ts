/**
 * What a plan's Slack messages will do to their readers, said on the plan before anyone approves it:
 * a `slack_notify` text is posted as written, so a `<!channel>` in it pings the channel and a
 * `<https://…|label>` shows a label that may hide where it leads. The approver reads the flag, not
 * the rendered message. A `<…>` whose content is filled in at run time (`<!{{steps.s1.output.text}}>`)
 * becomes whatever the value says, which nobody has read yet: it is flagged too (slack-notify.ts then
 * refuses a ping, or a link whose text is not its address, the approved text did not have).
 */
import type { Plan } from '../../../agent/model/plan/plan.ts';
import { disguisedLinksIn } from '../../../integrations/slack/slack-links.ts';
import { pingsIn } from '../../../integrations/slack/slack-pings.ts';
import { githubMentionFlags } from './github-mention-flags.ts';

/** A mention or link with a `{{ … }}` inside: its kind and target are known only once the value is filled. */
const FILLED_SPAN = /<[^<>]*\{\{[^<>]*\}\}[^<>]*>/g;
/** How much of such a span the flag quotes (the full view shows the whole text). */
const SPAN_SHOWN = 80;

export interface StepFlag {
  /** Where the step is, as a reader counts: `step 3` or `rollback step 1`. */
  where: string;
  flags: string[];
}

/** Each ping, each link whose label is not its address and each mention or link filled in at run time, in one text as Slack will render it. */
export function textFlags(text: string): string[] {
  const flags = pingsIn(text).map((ping) => `pings ${ping}`);
  for (const [span] of text.matchAll(FILLED_SPAN)) {
    const shown = span.length > SPAN_SHOWN ? `${span.slice(0, SPAN_SHOWN - 1)}…` : span;
    flags.push(
      `a mention or link whose content is filled in at run time (${shown}); it may not ping anyone the plan does not, nor make a link whose text is not its address`,
    );
  }
  for (const { address, label } of disguisedLinksIn(text)) flags.push(`link text differs from its address ("${label}" leads to ${address})`);
  return flags;
}

/** Flags of every slack_notify step and GitHub write with text (github-mention-flags.ts), forward and rollback, in plan order. */
export function planFlags(plan: Plan): StepFlag[] {
  const found: StepFlag[] = [];
  plan.steps.forEach((step, index) => {
    const flags = notifyFlags(step.tool, step.args);
    if (flags.length > 0) found.push({ where: `step ${index + 1}`, flags });
  });
  plan.rollback.forEach((step, index) => {
    const flags = notifyFlags(step.tool, step.args);
    if (flags.length > 0) found.push({ where: `rollback step ${index + 1}`, flags });
  });
  return found;
}

function notifyFlags(tool: string, args: Record<string, unknown>): string[] {
  if (tool !== 'slack_notify') return githubMentionFlags(tool, args);
  return typeof args.text === 'string' ? textFlags(args.text) : [];
}
