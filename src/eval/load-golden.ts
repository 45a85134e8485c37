/** Reads eval/golden/*.yml; every problem names its file, so a broken golden task is easy to find. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { GoldenTaskSchema, type GoldenTask } from './golden-schema.ts';

export interface LoadedGolden {
  tasks: GoldenTask[];
  problems: string[];
}

export async function loadGoldenTasks(dir: string): Promise<LoadedGolden> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((file) => /\.ya?ml$/.test(file)).sort();
  } catch (error) {
    return { tasks: [], problems: [`${dir}: cannot read the golden task folder (${(error as Error).message})`] };
  }
  const tasks: GoldenTask[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const parsed = parseGoldenTask(file, await readFile(path.join(dir, file), 'utf8'));
    if (!parsed.ok) {
      problems.push(...parsed.problems);
      continue;
    }
    if (tasks.some((task) => task.name === parsed.task.name)) problems.push(`${file}: the name ${parsed.task.name} is used twice`);
    else tasks.push(parsed.task);
  }
  if (files.length === 0) problems.push(`${dir}: no golden tasks (*.yml)`);
  return { tasks, problems };
}

export function parseGoldenTask(file: string, text: string): { ok: true; task: GoldenTask } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    return { ok: false, problems: [`${file}: not valid YAML (${(error as Error).message.split('\n')[0]})`] };
  }
  const result = GoldenTaskSchema.safeParse(raw);
  if (!result.success) return { ok: false, problems: result.error.issues.map((issue) => `${file}: ${issue.path.join('.') || 'task'}: ${issue.message}`) };
  const stem = path.basename(file).replace(/\.ya?ml$/, '');
  if (result.data.name !== stem) return { ok: false, problems: [`${file}: name ${result.data.name} must match the file name (${stem})`] };
  return { ok: true, task: result.data };
}
