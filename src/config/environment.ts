import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';

/** The runbooks the package ships (src/config → the package's own runbooks/, and the same from dist/config). */
const BUNDLED_RUNBOOKS = fileURLToPath(new URL('../../runbooks', import.meta.url));

/**
 * The process environment over a `.env` file in `cwd` (if any): real variables win, as in dotenv.
 * With TANDEM_RUNBOOKS_DIR unset, a `runbooks/` folder in `cwd` is used, else the bundled runbooks, so a
 * bot started from another folder still plans the README's "check health of …" with no model.
 */
export function readEnvironment(processEnv: NodeJS.ProcessEnv, cwd: string): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  const env = existsSync(file) ? { ...parseEnv(readFileSync(file, 'utf8')), ...processEnv } : { ...processEnv };
  if (env.TANDEM_RUNBOOKS_DIR === undefined && !existsSync(path.join(cwd, 'runbooks'))) env.TANDEM_RUNBOOKS_DIR = BUNDLED_RUNBOOKS;
  return env;
}

/**
 * The OpenTelemetry SDK reads its settings (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, OTEL_SERVICE_NAME, …) from the
 * process environment itself, so those a `.env` file gives are copied there; real variables still win.
 */
export function handOtelSettingsOn(env: Readonly<Record<string, string | undefined>>, processEnv: NodeJS.ProcessEnv): void {
  for (const [key, value] of Object.entries(env)) if (key.startsWith('OTEL_') && value !== undefined && processEnv[key] === undefined) processEnv[key] = value;
}

/** This process's settings: its environment over the `.env` of its working folder, the OTEL_* ones handed to the SDK. */
export function processSettings(): Record<string, string | undefined> {
  const env = readEnvironment(process.env, process.cwd());
  handOtelSettingsOn(env, process.env);
  return env;
}
