/** TANDEM_POLICY: one `.cedar` file, or a folder whose `.cedar` files (sorted by name) together are the policy. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Result } from '../agent/model/errors.ts';
import type { PolicyProblem, PolicySource } from '../agent/ports/policy.ts';

export function readPolicySources(location: string): Result<PolicySource[], PolicyProblem[]> {
  const at = (message: string): Result<PolicySource[], PolicyProblem[]> => ({ ok: false, error: [{ file: location, line: 1, column: 1, message }] });
  let files: string[];
  try {
    files = statSync(location).isDirectory()
      ? readdirSync(location)
          .filter((name) => name.endsWith('.cedar'))
          .sort()
          .map((name) => path.join(location, name))
      : [location];
  } catch (error) {
    return at(`cannot read the policy: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (files.length === 0) return at('the folder holds no .cedar file');
  return { ok: true, value: files.map((file) => ({ file, text: readFileSync(file, 'utf8') })) };
}
