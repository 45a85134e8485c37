export { startLocalWorkspace, type LocalWorkspace } from './local-workspace.ts';
export { LOCAL_CHANNEL, LOCAL_USER, BOT_NAME } from './local-identity.ts';
export type { PageState } from './browser-state.ts';
