/**
 * Whether a follow-up in a run's thread asks to cancel the run (CONTRACT §5: a mention in the thread "when it
 * says 'cancel', stops the run"). What counts is its meaningful words: mentions (`<@U…>`, `<!here>`, a user
 * group), emoji codes, punctuation and polite filler ("please", "this run", "can you", "@tandem", "thanks")
 * are set aside. What is left must either begin with "cancel" (an order: "cancel the v2 deploy", as a mention
 * starting with it always did) or be "cancel" or "stop" alone. So "@tandem please cancel" and "cancel this run
 * please" cancel, while an answer that only uses the word inside a sentence ("don't cancel, use v2", "stop at
 * v2") does not: it answers the pending question instead. "stop" is not an order on its own terms because
 * answers start with it ("stop the old pods first").
 */

const VERBS: ReadonlySet<string> = new Set(['cancel', 'stop']);

/** Words that carry no meaning of their own beside a cancel verb: courtesy, addressing, and the run itself. */
export const CANCEL_FILLER: ReadonlySet<string> = new Set([
  ...['please', 'pls', 'plz', 'kindly', 'just', 'now', 'right', 'away', 'immediately', 'asap', 'sorry', 'actually'],
  ...['thanks', 'thank', 'thx', 'ty', 'cheers', 'hey', 'hi', 'hello', 'ok', 'okay', 'yes', 'tandem', 'bot'],
  ...['can', 'could', 'would', 'will', 'you', 'go', 'ahead', 'and', 'i', 'we', 'want', 'to', 'need', "let's", 'lets', 'let', 'us', 'me', 'for'],
  ...['the', 'this', 'that', 'it', 'run', 'task', 'job', 'whole', 'everything', 'all', 'of'],
]);

/** Mentions of people, groups and the channel (`<@U1>`, `<@U1|sam>`, `<!here>`, `<!subteam^S1>`) and emoji codes (`:pray:`). */
const SET_ASIDE = /<[@!][^>]*>|:[a-z0-9_+'-]+:/gi;

export function isCancelRequest(text: string): boolean {
  const meaningful = meaningfulWords(text).filter((word) => !CANCEL_FILLER.has(word));
  return meaningful[0] === 'cancel' || (meaningful.length > 0 && meaningful.every((word) => VERBS.has(word)));
}

/** The words of a message in lower case, mentions and emoji set aside; an apostrophe inside a word keeps it whole ("don't"). */
function meaningfulWords(text: string): string[] {
  return text
    .replace(SET_ASIDE, ' ')
    .toLowerCase()
    .replace(/[\u2018\u2019`]/g, "'")
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
}
