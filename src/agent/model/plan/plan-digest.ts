/**
 * A plan version's content digest: what an approval binds to besides the version number. It covers
 * everything that decides what runs — the goal, every forward step (id, title, tool, args, dependsOn,
 * expect) and every rollback step (id, title, tool, args, undoes) — and nothing else: not the
 * planner's confidence, its questions, the schema version, nor the order an object's keys were
 * stored in (decision 025).
 */
import type { Plan } from './plan.ts';

/** How many hex characters of the digest the plan message, buttons and attribution lines show. */
export const SHORT_DIGEST_LENGTH = 12;

/** What the digest is computed over, in canonical JSON (keys sorted; array order kept, as it is meaning). */
export function digestedContent(plan: Plan): unknown {
  return {
    goal: plan.goal,
    steps: plan.steps.map((step) => ({
      id: step.id,
      title: step.title,
      tool: step.tool,
      args: step.args,
      dependsOn: step.dependsOn,
      expect: step.expect ?? null,
    })),
    rollback: plan.rollback.map((step) => ({ id: step.id, title: step.title, tool: step.tool, args: step.args, undoes: step.undoes ?? null })),
  };
}

/**
 * sha-256 of the canonical JSON of the plan's content, 64 hex characters. Web Crypto (a global in
 * Node 20), so the agent core imports no Node module for it.
 */
export async function planDigest(plan: Plan): Promise<string> {
  const bytes = new TextEncoder().encode(digestJson(digestedContent(plan)));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function shortDigest(digest: string): string {
  return digest.slice(0, SHORT_DIGEST_LENGTH);
}

/**
 * Canonical JSON for hashing: object keys sorted by UTF-16 code units (not localeCompare, whose order
 * depends on the host's locale: a digest must come out the same on every machine), no whitespace.
 */
export function digestJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
    ) ?? 'null'
  );
}
