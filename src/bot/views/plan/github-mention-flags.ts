/**
 * What a GitHub write's text will do to people, said on the plan (decision 058): each @-mention the
 * approved text makes notifies that person or team when the step runs, and an `@` the plan puts right
 * before a value filled in at run time mentions whoever the value names (the step refuses that unless
 * the approved text already mentions them). Mentions inside filled-in values are quieted, so they need no flag.
 */
import { MENTION_ARGS, mentionsIn } from '../../../integrations/tools/github/github-mentions.ts';

const MENTION_BEFORE_VALUE = /@\{\{/;

export function githubMentionFlags(tool: string, args: Record<string, unknown>): string[] {
  const flags: string[] = [];
  for (const at of MENTION_ARGS[tool] ?? []) {
    const text = args[at];
    if (typeof text !== 'string') continue;
    const mentions = mentionsIn(text);
    if (mentions.length > 0) flags.push(`its ${at} mentions ${mentions.join(', ')} on GitHub, who will be notified`);
    if (MENTION_BEFORE_VALUE.test(text)) flags.push(`its ${at} has an @ before a value filled in at run time; it may not mention anyone the plan does not`);
  }
  return flags;
}
