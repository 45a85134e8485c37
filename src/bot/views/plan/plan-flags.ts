/**
 * What a plan's Slack messages will do to their readers, said on the plan before anyone approves it:
 * a `slack_notify` text is posted as written, so a `<!channel>` in it pings the channel and a
 * `<https://…|label>` shows a label that may hide where it leads. The approver reads the flag, not
 * the rendered message.
 */
import type { Plan } from '../../../agent/model/plan/plan.ts';

/** Slack's broadcast and user-group mentions, with or without a fallback label. */
const PING = /<!(channel|here|everyone)(?:\|[^>]*)?>|<!subteam\^([A-Z0-9]+)(?:\|[^>]*)?>/g;
/** A link with a label: `<address|label>` (mentions and channels start with @, # or ! and are not links). */
const LABELLED_LINK = /<([^@#!<>|][^<>|]*)\|([^<>]*)>/g;

export interface StepFlag {
  /** Where the step is, as a reader counts: `step 3` or `rollback step 1`. */
  where: string;
  flags: string[];
}

/** Each ping and each link whose label is not its address, in one text as Slack will render it. */
export function textFlags(text: string): string[] {
  const flags: string[] = [];
  for (const match of text.matchAll(PING)) {
    const flag = match[1] ? `pings @${match[1]}` : `pings user group ${match[2]}`;
    if (!flags.includes(flag)) flags.push(flag);
  }
  for (const match of text.matchAll(LABELLED_LINK)) {
    const [, address = '', label = ''] = match;
    if (!sameAddress(address, label)) flags.push(`link text differs from its address ("${label.trim()}" leads to ${address})`);
  }
  return flags;
}

/** A label that is the address itself, with or without its scheme or a trailing slash, hides nothing. */
function sameAddress(address: string, label: string): boolean {
  const bare = (value: string) =>
    value
      .trim()
      .replace(/^(https?:\/\/|mailto:)/i, '')
      .replace(/\/$/, '')
      .toLowerCase();
  return bare(address) === bare(label);
}

/** Flags of every slack_notify step, forward and rollback, in plan order. */
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
  return tool === 'slack_notify' && typeof args.text === 'string' ? textFlags(args.text) : [];
}
