import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { RunbookFileSchema, runbookFromFile, type Runbook } from './runbook.ts';

export interface RunbookProblem {
  path: string;
  reason: string;
}

/**
 * Loads `<dir>/*.yml` (and `.yaml`) in name order. A bad file is reported with its path and reason and
 * skipped: one typo must not take every other runbook down. A missing folder is simply no runbooks.
 */
export async function loadRunbookFiles(dir: string): Promise<{ runbooks: Runbook[]; problems: RunbookProblem[] }> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { runbooks: [], problems: [] };
    return { runbooks: [], problems: [{ path: dir, reason: `cannot read the folder: ${(error as Error).message}` }] };
  }
  const runbooks: Runbook[] = [];
  const problems: RunbookProblem[] = [];
  for (const entry of entries.filter((name) => /\.ya?ml$/i.test(name)).sort()) {
    const file = path.join(dir, entry);
    const loaded = await loadOne(file);
    if ('reason' in loaded) problems.push({ path: file, reason: loaded.reason });
    else if (runbooks.some((runbook) => runbook.name === loaded.runbook.name)) problems.push({ path: file, reason: `another file already defines a runbook named ${loaded.runbook.name}` });
    else runbooks.push(loaded.runbook);
  }
  return { runbooks, problems };
}

async function loadOne(file: string): Promise<{ runbook: Runbook } | { reason: string }> {
  let document: unknown;
  try {
    document = parseYaml(await readFile(file, 'utf8'));
  } catch (error) {
    return { reason: `not valid YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  const parsed = RunbookFileSchema.safeParse(document);
  if (!parsed.success) {
    return { reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ') };
  }
  return { runbook: runbookFromFile(parsed.data, file) };
}
