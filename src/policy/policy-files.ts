/** TANDEM_POLICY: one `.cedar` file, or a folder whose `.cedar` files (sorted by name) together are the policy. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Result } from '../agent/model/errors.ts';
import type { PolicyProblem, PolicySource } from '../agent/ports/policy.ts';

/**
 * Never throws: the folder can change under a running bot (a reload on change or SIGHUP), and an entry that is a
 * folder, unreadable or gone by the time it is read is a problem to report, not a crash.
 */
export function readPolicySources(location: string): Result<PolicySource[], PolicyProblem[]> {
  let files: string[];
  try {
    files = statSync(location).isDirectory() ? policyFilesIn(location) : [location];
  } catch (error) {
    return { ok: false, error: [cannotRead(location, error)] };
  }
  if (files.length === 0) return { ok: false, error: [{ file: location, line: 1, column: 1, message: 'the folder holds no .cedar file' }] };
  const sources: PolicySource[] = [];
  const problems: PolicyProblem[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: readFileSync(file, 'utf8') });
    } catch (error) {
      problems.push(cannotRead(file, error));
    }
  }
  return problems.length > 0 ? { ok: false, error: problems } : { ok: true, value: sources };
}

/** The folder's `.cedar` entries that are not themselves folders; one that cannot be looked at is kept, so its read reports why. */
function policyFilesIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.cedar'))
    .sort()
    .map((name) => path.join(folder, name))
    .filter((file) => !isFolder(file));
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function cannotRead(file: string, error: unknown): PolicyProblem {
  return { file, line: 1, column: 1, message: `cannot read the policy: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
}
