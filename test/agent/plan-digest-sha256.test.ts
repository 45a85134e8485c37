/**
 * The plan digest's own SHA-256 (computed in the caller's turn of the event loop, decision 030) gives
 * node:crypto's answer for every length around the block and padding edges, for random bytes and for text
 * beyond ASCII, and a plan's digest is the sha-256 of its canonical JSON as before.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestedContent, digestJson, planDigest, sha256Hex } from '../../src/agent/model/plan/plan-digest.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';

const nodeSha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('sha256Hex', () => {
  it('matches node:crypto for every length from 0 to 300 bytes and a few large ones', () => {
    for (const length of [...Array.from({ length: 301 }, (_, i) => i), 1000, 4096, 65_537, 1_000_003]) {
      const bytes = new Uint8Array(randomBytes(length));
      expect(sha256Hex(bytes), `length ${length}`).toBe(nodeSha256(bytes));
    }
  });

  it('gives the standard digests of the empty string and "abc"', () => {
    expect(sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('planDigest', () => {
  it('is the sha-256 of the canonical JSON of the plan, non-ASCII text included', async () => {
    const plan: Plan = {
      schemaVersion: 1,
      goal: 'Déployer 🚀 le correctif',
      confidence: 0.9,
      steps: [{ id: 's1', title: 'Fusionner « la branche »', tool: 'github.merge', args: { repo: 'o/r', pr: 7 }, dependsOn: [] }],
      rollback: [],
    };
    expect(await planDigest(plan)).toBe(nodeSha256(new TextEncoder().encode(digestJson(digestedContent(plan)))));
  });
});
