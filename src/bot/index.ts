export { createSlackApp } from './create-slack-app.ts';
export { SlackSurface } from './slack-surface.ts';

export { createSlackPoster } from './slack-poster.ts';
export { createSlackApproverDirectory } from './slack-approver-directory.ts';
export { createSlackClient, type SlackClient } from './slack-client.ts';
