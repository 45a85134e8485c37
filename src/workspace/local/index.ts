export { startLocalWorkspace, type LocalWorkspace } from './local-workspace.ts';
