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
 * sha-256 of the canonical JSON of the plan's content, 64 hex characters. Computed here, in this turn of
 * the event loop: Web Crypto's digest runs on the thread pool and answers in a later turn, and after a
 * restart with a thousand runs open each run's first pass waited for its digest while the runs already
 * past theirs ran to their end, so the last run's first step came after every other run's last
 * (decision 030). Async as before, for its callers.
 */
export async function planDigest(plan: Plan): Promise<string> {
  return sha256Hex(new TextEncoder().encode(digestJson(digestedContent(plan))));
}

/** FIPS 180-4 SHA-256 (the agent core imports no Node module; test/agent/plan-digest-sha256.test.ts checks it against node:crypto). */
export function sha256Hex(message: Uint8Array): string {
  const padded = new Uint8Array(Math.ceil((message.length + 9) / 64) * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const bits = new DataView(padded.buffer);
  bits.setUint32(padded.length - 8, Math.floor(message.length / 0x20000000));
  bits.setUint32(padded.length - 4, (message.length * 8) >>> 0);
  const hash = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = bits.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hash as unknown as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, h].forEach((value, i) => (hash[i] = (hash[i]! + value) >>> 0));
  }
  return Array.from(hash, (word) => word.toString(16).padStart(8, '0')).join('');
}

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
// prettier-ignore
const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

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
