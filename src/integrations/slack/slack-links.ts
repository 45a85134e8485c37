/**
 * Slack links whose text is not their address: `<https://a.example|the docs>` shows "the docs" and leads elsewhere. The
 * plan view flags them before approval, and slack_notify refuses a text whose filled values made one the approved
 * text did not have (decision 056): a value cannot add `<` or `>` (it is escaped), but one filled inside a `<…>` the
 * plan wrote can bring its own `|label`.
 */

/** A link with a label: `<address|label>` (mentions and channels start with @, # or ! and are not links). */
const LABELLED_LINK = /^<([^@#!<>|][^<>|]*)\|([^<>]*)>$/;
/** Every `<…>` span: Slack's mentions and links. */
const SPAN = /<[^<>]*>/g;
/** A reference filled in at run time; a `|` inside one is not the plan's own. */
const REFERENCE = /\{\{[^{}]*\}\}/g;

export interface DisguisedLink {
  address: string;
  label: string;
}

/** Each link in the text whose label is not its address, in order. */
export function disguisedLinksIn(text: string): DisguisedLink[] {
  return (text.match(SPAN) ?? []).flatMap((span) => disguisedLink(span) ?? []);
}

/**
 * The links of the filled text whose label a filled value wrote: each `<…>` of the approved text whose own words (its
 * references left out) have no `|`, that became a link whose label is not its address once filled. Values cannot add
 * or remove `<…>` spans (they are escaped), so the spans of the two texts pair up in order.
 */
export function linksLabelledByValues(planned: string, filled: string): DisguisedLink[] {
  const plannedSpans = planned.match(SPAN) ?? [];
  const filledSpans = filled.match(SPAN) ?? [];
  // Not paired (a plan text that was not a string, or a filled value the tool did not escape): any new label counts.
  if (plannedSpans.length !== filledSpans.length) return disguisedLinksIn(filled).slice(disguisedLinksIn(planned).length);
  return filledSpans.flatMap((span, index) => {
    const link = disguisedLink(span);
    return link && !plannedSpans[index]!.replace(REFERENCE, '').includes('|') ? [link] : [];
  });
}

function disguisedLink(span: string): DisguisedLink | undefined {
  const match = LABELLED_LINK.exec(span);
  if (!match) return undefined;
  const [, address = '', label = ''] = match;
  return sameAddress(address, label) ? undefined : { address, label: label.trim() };
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
