/**
 * What the workspace shows when it runs the demo: a banner on every view, a DEMO mark on every message
 * of the bot, and the guided tasks as suggestions above the composer. Plain data the runtime hands in;
 * the workspace knows nothing of how the demo works.
 */
export interface DemoPresentation {
  banner: string;
  suggestions: readonly { label: string; text: string; hint: string }[];
}
