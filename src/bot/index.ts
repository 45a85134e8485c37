export { createSlackApp } from './create-slack-app.ts';
export { SlackSurface } from './surface/slack-surface.ts';

export { createSlackPoster } from './surface/slack-poster.ts';
export { createSlackApproverDirectory } from './surface/slack-approver-directory.ts';
export { createSlackClient, isSlackTimeout, type SlackClient } from './surface/slack-client.ts';
export type { PostSettle } from './surface/owed-messages.ts';
