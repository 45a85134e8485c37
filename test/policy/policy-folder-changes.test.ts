import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startPolicy } from '../../src/runtime/policy/policy-wiring.ts';
import { runTandem } from '../cli/tandem-process.ts';

const RULE = (group: string) => `@id("approvers")\npermit (principal in Group::"${group}", action == Action::"approve", resource is Step);\n`;
const scratch = mkdtempSync(path.join(tmpdir(), 'policy-folder-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function policyFolder(name: string): string {
  const folder = path.join(scratch, name);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'approvers.cedar'), RULE('S_OLD'));
  return folder;
}

function started(folder: string) {
  const lines: string[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (line: unknown) => lines.push(String(line)) } as never;
  return { lines, policy: startPolicy(loadConfig({ TANDEM_POLICY: folder }), { groupsOf: async () => [] }, logger) };
}

describe('a TANDEM_POLICY folder that changes under the running bot', () => {
  it('a folder named like a policy file inside it is not read as one: the reload goes on without it', () => {
    const folder = policyFolder('with-subfolder');
    const { lines, policy } = started(folder);
    try {
      writeFileSync(path.join(folder, 'approvers.cedar'), RULE('S_NEW'));
      mkdirSync(path.join(folder, 'zz.cedar'));
      process.emit('SIGHUP');
      expect(policy.gate.current().groups).toEqual(['S_NEW']);
      expect(lines).toEqual([]);
    } finally {
      policy.stop();
    }
  });

  it('a file that cannot be read (gone before it is read) keeps the old policy in force, with one line naming the file', () => {
    const folder = policyFolder('with-missing-file');
    const { lines, policy } = started(folder);
    try {
      const before = policy.gate.current();
      writeFileSync(path.join(folder, 'approvers.cedar'), RULE('S_NEW'));
      symlinkSync(path.join(folder, 'deleted.txt'), path.join(folder, 'yy.cedar'));
      process.emit('SIGHUP');
      expect(policy.gate.current()).toBe(before);
      expect(lines).toEqual([`policy not reloaded, the previous one stays in force: ${path.join(folder, 'yy.cedar')}:1:1 cannot read the policy: ENOENT`]);
    } finally {
      policy.stop();
    }
  });
});

describe('tandem start with a TANDEM_POLICY folder holding a file it cannot read', () => {
  it('stops with one line naming the variable and the file, no stack trace', async () => {
    const folder = policyFolder('unreadable-at-start');
    symlinkSync(path.join(folder, 'deleted.txt'), path.join(folder, 'yy.cedar'));
    const tandem = runTandem(['start', '--local'], { TANDEM_POLICY: folder, PORT: '0', DATA_DIR: path.join(scratch, 'data') }, scratch);
    expect(await tandem.exited).toBe(1);
    expect(tandem.stderr().trim()).toBe(`tandem: configuration error: TANDEM_POLICY: ${path.join(folder, 'yy.cedar')}:1:1 cannot read the policy: ENOENT`);
  }, 60_000);
});
