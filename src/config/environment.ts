import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** The process environment over a `.env` file in `cwd` (if any): real variables win, as in dotenv. */
export function readEnvironment(processEnv: NodeJS.ProcessEnv, cwd: string): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  if (!existsSync(file)) return { ...processEnv };
  return { ...parseEnv(readFileSync(file, 'utf8')), ...processEnv };
}
