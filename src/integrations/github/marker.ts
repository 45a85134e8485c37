/**
 * The hidden marker a write tool leaves in what it creates, so that after a crash reconcile() can tell
 * "we made this" from "someone else did". ctx.marker is `tandem:<runId>/<stepId>`.
 */
export function markerComment(marker: string): string {
  return `<!-- ${marker} -->`;
}

export function withMarker(body: string | undefined, marker: string): string {
  const text = body ?? '';
  return text ? `${text}\n\n${markerComment(marker)}` : markerComment(marker);
}

export function hasMarker(body: string | null | undefined, marker: string): boolean {
  return typeof body === 'string' && body.includes(markerComment(marker));
}

/** Objects created a little before ctx.startedAt still count: clocks of GitHub and this host differ. */
export const CLOCK_SKEW_MS = 60_000;

export function sinceWithSkew(startedAt: Date, skewMs = CLOCK_SKEW_MS): Date {
  return new Date(startedAt.getTime() - skewMs);
}
