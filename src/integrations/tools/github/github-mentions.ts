/**
 * GitHub @-mentions in the text Tandem writes (decision 058). `@login` notifies that person and
 * `@org/team` every member of the team, wherever the text came from. The plan's own words were read
 * by the approver; a value filled in at run time (a pull request's title, a model's summary) was not,
 * so its mentions are quieted, and a mention the plan's text completes around such a value is refused.
 */

/** A mention as GitHub reads one: `@` after a non-word character (not in an e-mail address), then a login, and `/team` for a team. */
const MENTION = /(?<![A-Za-z0-9_])@([A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][A-Za-z0-9_.-]*)?)/g;
/** Where a mention would begin: the same `@`, before the first character of a login. */
const MENTION_START = /(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])/g;
/** U+2060 WORD JOINER: invisible, so the text reads the same, but no login starts right after the `@`. */
const QUIET = '\u2060';

/** The text args of GitHub's write tools that GitHub reads mentions in (or shows beside a notification). */
export const MENTION_ARGS: Readonly<Record<string, readonly string[]>> = {
  github_comment: ['body'],
  github_create_issue: ['title', 'body'],
  github_create_release: ['name', 'body'],
};

/** Each mention in the text, once, as written (`@alice`, `@acme/ops`); GitHub's names are case-insensitive. */
export function mentionsIn(text: string): string[] {
  const found = new Map<string, string>();
  for (const match of text.matchAll(MENTION)) {
    const mention = `@${match[1]!}`;
    if (!found.has(mention.toLowerCase())) found.set(mention.toLowerCase(), mention);
  }
  return [...found.values()];
}

/** The text, shown the same, that mentions nobody: a word joiner after each `@` that would start a mention. */
export function quietMentions(text: string): string {
  return text.replace(MENTION_START, `@${QUIET}`);
}

/** A tool's quoteFilled: quiets mentions in a value filled into one of its text args; targets (a tag, a ref) are left as they are. */
export function quietFilledMentions(textArgs: readonly string[]): (text: string, at: string) => string {
  return (text, at) => (textArgs.includes(at) ? quietMentions(text) : text);
}

/** The step's error code when the text as filled in mentions someone the approved text does not. */
export const MENTION_NOT_APPROVED = 'mention-not-approved';

/**
 * For a tool's refuseFilled. Quieting each value cannot see a mention the plan's own text completes around
 * one (`cc @{{steps.s1.output.text}}` and "acme/everyone"): the text as filled may mention only whom
 * the approved text mentions.
 */
export function addedMentionRefusal(
  textArgs: readonly string[],
  planned: Record<string, unknown>,
  filled: object,
): { code: string; at: string; message: string } | undefined {
  for (const at of textArgs) {
    const value = (filled as Record<string, unknown>)[at];
    if (typeof value !== 'string') continue;
    const approved = new Set((typeof planned[at] === 'string' ? mentionsIn(planned[at]) : []).map((mention) => mention.toLowerCase()));
    const added = mentionsIn(value).filter((mention) => !approved.has(mention.toLowerCase()));
    if (added.length === 0) continue;
    return {
      code: MENTION_NOT_APPROVED,
      at,
      message:
        `the ${at} as filled in mentions ${added.join(', ')} on GitHub, which the approved plan does not: a value filled in at run time completed the mention, so nothing was posted. ` +
        'To notify someone on purpose, write the mention itself in the plan (Modify) so an approver reads it.',
    };
  }
  return undefined;
}
