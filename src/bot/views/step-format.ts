import type { Risk } from '../../agent/ports/tool.ts';
import { escapeText, truncate } from './text.ts';

export const RISK_BADGE: Record<Risk, string> = {
  read: ':mag: read',
  write: ':pencil2: write',
  destructive: ':warning: *destructive*',
};

/** The first few args as `key=value`, each value short; enough to recognise the step, not to audit it. */
export function keyArgs(args: Record<string, unknown>, maxArgs = 3): string {
  const entries = Object.entries(args);
  const shown = entries.slice(0, maxArgs).map(([key, value]) => `${key}=${truncate(renderValue(value), 40)}`);
  if (entries.length > maxArgs) shown.push(`+${entries.length - maxArgs} more`);
  return escapeText(shown.join(', '));
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

/** What a step waits for besides earlier steps, for tools whose whole point is waiting. */
export function waitsFor(tool: string, args: Record<string, unknown>): string | undefined {
  if (tool === 'ask_human') return 'waits for an answer in this thread';
  if (tool === 'wait' && typeof args.seconds === 'number') return `waits ${args.seconds}s`;
  if (tool === 'github_dispatch_workflow' && args.wait !== false) return 'waits for the workflow run to finish';
  return undefined;
}
