export { startLocalWorkspace, type LocalWorkspace } from './local-workspace.ts';
export type { DemoPresentation } from './demo-presentation.ts';
export type { WorkspacePerson } from './people.ts';
