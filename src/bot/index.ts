export { createSlackApp } from './create-slack-app.ts';
export { SlackSurface } from './surface/slack-surface.ts';

export { createSlackPoster } from './surface/slack-poster.ts';
export { createSlackClient, isSlackTimeout, type SlackClient } from './surface/slack-client.ts';
export type { PostSettle } from './surface/owed-messages.ts';
