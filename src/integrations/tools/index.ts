export { createBuiltinTools } from './builtin-tools.ts';
export { toolCatalogue } from './catalogue.ts';
export { defineTool } from './define-tool.ts';
export type { ToolDeps } from './deps.ts';
export type { SlackPoster } from './slack-poster.ts';
