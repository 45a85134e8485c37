/**
 * Who is in the local workspace: one person at the keyboard, the bot, one channel. The ids are
 * Slack-shaped (`U…`, `C…`) so configuration that checks them (TANDEM_APPROVERS) accepts them.
 */
export const LOCAL_USER = { id: 'ULOCAL', name: 'you' } as const;
export const LOCAL_CHANNEL = { id: 'CGENERAL', name: 'general' } as const;
export const BOT_NAME = 'tandem';
/** The person's direct message with the bot (Slack's `D…` ids): a request there plans in its own thread. */
export const LOCAL_DM = { id: 'DLOCAL', name: BOT_NAME } as const;
/** Where the person can talk to the bot, the channel first. */
export const LOCAL_CONVERSATIONS: readonly string[] = [LOCAL_CHANNEL.id, LOCAL_DM.id];
