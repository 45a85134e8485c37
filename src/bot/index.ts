export { createSlackApp, healthRoute, type SlackApp, type SlackAppOptions } from './create-slack-app.ts';
export { SlackSurface, type SlackSurfaceOptions } from './slack-surface.ts';
export { BoardPublisher } from './board-publisher.ts';
export { createSlackPoster } from './slack-poster.ts';
export { createSlackApproverDirectory } from './slack-approver-directory.ts';
export { createSlackClient, type SlackClient } from './slack-client.ts';
export { createMemoryInbox, type RunQueries, type SlackInbox } from './ports.ts';
