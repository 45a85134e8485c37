import type { Risk } from '../../agent/ports/tool.ts';
import { escapeText, truncate } from './text.ts';

export const RISK_BADGE: Record<Risk, string> = {
  read: ':mag: read',
  write: ':pencil2: write',
  destructive: ':warning: *destructive*',
};

/**
 * A step's args as `key=value`. A write's target args (what it acts on: repository, number, tag,
 * ref, workflow, channel) come first and in full, however long; the others are shortened, enough
 * to recognise the step. A read step's args are all shortened, targets first. `targets` undefined:
 * nothing says which args pick the object, so every arg counts as one.
 */
export function stepArgs(args: Record<string, unknown>, targets: readonly string[] | undefined, risk: Risk, maxOther = 3): string {
  const targetNames = (targets ?? Object.keys(args)).filter((name) => args[name] !== undefined);
  const others = Object.keys(args).filter((name) => !targetNames.includes(name));
  const full = risk !== 'read';
  const shown = full ? targetNames.map((name) => `${name}=${renderValue(args[name])}`) : [];
  const short = full ? others : [...targetNames, ...others];
  shown.push(...short.slice(0, maxOther).map((name) => `${name}=${truncate(renderValue(args[name]), 40)}`));
  if (short.length > maxOther) shown.push(`+${short.length - maxOther} more`);
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
