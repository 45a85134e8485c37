import { describe, expect, it } from 'vitest';
import { policyCommand } from '../../src/cli/policy-command.ts';
import { loadConfig } from '../../src/config/config.ts';

describe('tandem policy test <cases>', () => {
  it('says in one line that a cases file it cannot read is missing, and exits 1', () => {
    const out: string[] = [];
    const err: string[] = [];
    const options = {
      limit: undefined,
      local: false,
      recorded: false,
      record: false,
      json: false,
      run: undefined,
      policy: 'docs/policy/examples/no-self-approval.cedar',
    };
    const code = policyCommand(
      ['test', 'no/such/cases.yaml'],
      options,
      loadConfig({}),
      (line) => out.push(line),
      (line) => err.push(line),
    );
    expect({ code, out, err }).toEqual({ code: 1, out: [], err: ['no/such/cases.yaml: cannot read the cases (ENOENT)'] });
  });
});
