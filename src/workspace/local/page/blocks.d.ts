// Types for the page's Block Kit renderer, so tests written in TypeScript can import it.
export function renderText(text: { type: string; text: string } | undefined, users?: Record<string, string>): string;
export function renderBlocks(
  blocks: unknown,
  context?: {
    users?: Record<string, string>;
    messageTs?: string;
    interactive?: boolean;
    errors?: Record<string, string>;
    feedbackPressed?: 'positive' | 'negative';
  },
): string;
