/**
 * `tandem policy check` lists a policy's problems as a person reads the files: in the files' order, then by line,
 * whatever order Cedar's validator gives them in; and Cedar's words are put on one line without changing what
 * stands inside its quotes (an id with two spaces is that id, not another).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyCommand } from '../../src/cli/policy-command.ts';
import { loadConfig } from '../../src/config/config.ts';
import { singleLine } from '../../src/policy/parse-policy-set.ts';

function check(files: Record<string, string>): { code: number; err: string[]; folder: string } {
  const folder = mkdtempSync(path.join(tmpdir(), 'policy-order-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
  const err: string[] = [];
  const options = { limit: undefined, local: false, recorded: false, record: false, json: false, run: undefined };
  const code = policyCommand(
    ['check', folder],
    options,
    loadConfig({}),
    () => undefined,
    (line) => err.push(line),
  );
  return { code, err, folder };
}

describe('tandem policy check over a folder of files', () => {
  it('lists the validator’s problems in file order, then by line, not by rule id', () => {
    // Cedar reports by rule id: "aa" (b.cedar) would come before "zz" and "mm" (a.cedar).
    const { code, err, folder } = check({
      'a.cedar': '@id("zz") permit (principal, action == Action::"aprove", resource);\n@id("mm") permit (principal, action == Action::"aprovv", resource);\n',
      'b.cedar': '@id("aa") permit (principal, action == Action::"aprova", resource);\n',
    });
    expect(code).toBe(1);
    const places = err.filter((line) => line.includes('unrecognized action')).map((line) => line.slice(folder.length + 1).split(' ')[0]);
    expect(places).toEqual(['a.cedar:1:40', 'a.cedar:2:40', 'b.cedar:1:40']);
  });

  it('prints what Cedar quotes as written: two spaces in an action name stay two', () => {
    const { err } = check({ 'a.cedar': '@id("x") permit (principal, action == Action::"apr  ove", resource);\n' });
    expect(err.join('\n')).toContain('Action::"apr  ove"');
  });
});

describe('Cedar’s words on one line', () => {
  it('collapses whitespace outside quotes only; a line break inside quotes is written \\n', () => {
    expect(singleLine('unexpected   token\n  here')).toBe('unexpected token here');
    expect(singleLine('entity  User::"a  b"  not\tfound')).toBe('entity User::"a  b" not found');
    expect(singleLine('string "line one\nline two" ends')).toBe('string "line one\\nline two" ends');
    expect(singleLine('escaped "a \\"  b"  c')).toBe('escaped "a \\"  b" c');
    expect(singleLine('an open " quote   stays')).toBe('an open " quote stays');
  });
});
