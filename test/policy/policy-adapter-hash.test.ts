/**
 * A policy's hash names exactly its files and their texts: the audit judges each stored approval by the policy
 * whose hash it recorded, so two different policies must never share one.
 */
import { expect, it } from 'vitest';
import { policyHash } from '../../src/policy/cedar-engine.ts';

const RULE = 'permit(principal == User::"U1", action == Action::"approve", resource is Step);';

it('moving characters between a file name and its text, or between two files, changes the hash', () => {
  const hashes = [
    policyHash([{ file: 'a.cedar', text: RULE }]),
    policyHash([{ file: 'a.cedarp', text: RULE.slice(1) }]),
    policyHash([{ file: 'a.cedar', text: `${RULE}\n` }]),
    policyHash([
      { file: 'a.cedar', text: RULE.slice(0, 10) },
      { file: 'b.cedar', text: RULE.slice(10) },
    ]),
    // The start of the next file's name moved to the end of one file's text.
    policyHash([
      { file: 'a.cedar', text: RULE.slice(0, 10) },
      { file: 'bz.cedar', text: RULE.slice(10) },
    ]),
    policyHash([
      { file: 'a.cedar', text: `${RULE.slice(0, 10)}b` },
      { file: 'z.cedar', text: RULE.slice(10) },
    ]),
  ];
  expect(new Set(hashes).size).toBe(hashes.length);
});

it('the same files in another order hash the same: the order they were read in does not matter', () => {
  const a = { file: 'a.cedar', text: RULE };
  const b = { file: 'b.cedar', text: RULE.replace('U1', 'U2') };
  expect(policyHash([a, b])).toBe(policyHash([b, a]));
});
