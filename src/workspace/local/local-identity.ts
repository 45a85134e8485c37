/**
 * Who is in the local workspace: one person at the keyboard, the bot, one channel. The ids are
 * Slack-shaped (`U…`, `C…`) so configuration that checks them (TANDEM_APPROVERS) accepts them.
 */
export const LOCAL_USER = { id: 'ULOCAL', name: 'you' } as const;
export const LOCAL_CHANNEL = { id: 'CGENERAL', name: 'general' } as const;
export const BOT_NAME = 'tandem';
