/** Tool outputs are data for a model and a status board: keep lists and bodies bounded. */
export const MAX_BODY_CHARS = 2_000;

export function truncate(text: string | null | undefined, max = MAX_BODY_CHARS): string | null {
  if (text === null || text === undefined) return null;
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

export function firstLine(text: string | null | undefined): string {
  return (text ?? '').split('\n', 1)[0] ?? '';
}
