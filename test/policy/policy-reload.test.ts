import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startPolicy } from '../../src/runtime/policy/policy-wiring.ts';

const RULE = (group: string) => `@id("approvers")\npermit (principal in Group::"${group}", action == Action::"approve", resource is Step);\n`;

describe('SIGHUP reloads TANDEM_POLICY', () => {
  it('swaps in a valid policy, keeps the old one in force on an invalid one and logs one line naming the error, and stores each policy it loads', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-reload-')), 'rules.cedar');
    writeFileSync(file, RULE('S_OLD'));
    const lines: string[] = [];
    const logger = { info: () => undefined, warn: () => undefined, error: (line: unknown) => lines.push(String(line)) } as never;
    const kept: string[] = [];
    const started = startPolicy(loadConfig({ TANDEM_POLICY: file }), { groupsOf: async () => [] }, logger, async (policy) => void kept.push(policy.hash));
    if (!started) throw new Error('no policy started');
    try {
      const first = started.gate.current();
      expect(first.groups).toEqual(['S_OLD']);

      writeFileSync(file, RULE('S_NEW'));
      process.emit('SIGHUP');
      const second = started.gate.current();
      expect(second.groups).toEqual(['S_NEW']);

      writeFileSync(file, 'permit (principal, action == Action::"approve", resource is Step) when { resource.rsk == "x" };\n');
      process.emit('SIGHUP');
      expect(started.gate.current()).toBe(second);
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^policy not reloaded, the previous one stays in force: ${file}:1:\\d+ .*attribute \`rsk\``))]);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(kept).toEqual([first.hash, second.hash]);
    } finally {
      await started.stop();
    }
  });

  it('texts the store could not take (an outage at start-up) are saved again until they are stored, so the audit can judge decisions under them', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-keep-')), 'rules.cedar');
    writeFileSync(file, RULE('S_ONE'));
    const errors: string[] = [];
    const logger = { info: () => undefined, warn: () => undefined, error: (_: unknown, line: string) => errors.push(line) } as never;
    const stored: string[] = [];
    let outage = 3;
    const save = async (policy: { hash: string }) => {
      if (outage-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      stored.push(policy.hash);
    };
    const started = startPolicy(loadConfig({ TANDEM_POLICY: file }), { groupsOf: async () => [] }, logger, save, 5);
    try {
      const deadline = Date.now() + 5000;
      while (stored.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(stored).toEqual([started.gate.current().hash]);
      // One line for the outage, not one per try.
      expect(errors).toEqual(['could not store the policy texts for the audit; retrying until it can']);
    } finally {
      await started.stop();
    }
  });

  it.each([
    ['back', true],
    ['still down', false],
  ])(
    'texts not yet stored at shutdown are tried once more; with the store %s they are stored, or the log says they are not, with no secret',
    async (_what, back) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-stop-')), 'rules.cedar');
      writeFileSync(file, RULE('S_ONE'));
      const logged: { fields: unknown; line: string }[] = [];
      const logger = { info: () => undefined, warn: () => undefined, error: (fields: unknown, line: string) => logged.push({ fields, line }) } as never;
      const stored: string[] = [];
      let down = true;
      const save = async (policy: { hash: string }) => {
        if (down) throw Object.assign(new Error('connect ECONNREFUSED postgres://tandem:s3cret-pass@db.internal:5432/tandem'), { code: 'ECONNREFUSED' });
        stored.push(policy.hash);
      };
      // The next retry is a minute away: only the shutdown's try can store the texts.
      const started = startPolicy(loadConfig({ TANDEM_POLICY: file }), { groupsOf: async () => [] }, logger, save, 60_000);
      const deadline = Date.now() + 5000;
      while (logged.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      down = !back;
      await started.stop();
      const hash = started.gate.current().hash;
      if (back) {
        expect(stored).toEqual([hash]);
        expect(logged).toHaveLength(1);
        return;
      }
      expect(stored).toEqual([]);
      const last = logged.at(-1)!;
      expect(last.line).toMatch(/^the policy texts are not stored: the store could not take them before shutdown/);
      expect(last.fields).toEqual({ hash: hash.slice(0, 12), reason: 'ECONNREFUSED' });
      expect(JSON.stringify(last)).not.toContain('s3cret');
    },
  );

  it('a change of the file reloads it without a signal', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'policy-watch-')), 'rules.cedar');
    writeFileSync(file, RULE('S_BEFORE'));
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    const started = startPolicy(loadConfig({ TANDEM_POLICY: file }), { groupsOf: async () => [] }, logger);
    if (!started) throw new Error('no policy started');
    try {
      writeFileSync(file, RULE('S_AFTER'));
      const deadline = Date.now() + 5000;
      while (started.gate.current().groups[0] !== 'S_AFTER' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(started.gate.current().groups).toEqual(['S_AFTER']);
    } finally {
      await started.stop();
    }
  });
});
