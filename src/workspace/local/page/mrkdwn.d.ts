// Types for the page's renderer, so tests written in TypeScript can import it.
export function escapeHtml(text: string): string;
export function emojify(html: string): string;
export function renderPlain(text: string): string;
export function renderMrkdwn(text: string, users?: Record<string, string>): string;
