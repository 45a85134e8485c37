export { createSlackApp } from './create-slack-app.ts';
export { SlackSurface } from './surface/slack-surface.ts';

export { createSlackPoster } from './surface/slack-poster.ts';
export { createSlackClient, type SlackClient } from './surface/slack-client.ts';
