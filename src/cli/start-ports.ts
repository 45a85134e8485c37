/**
 * The ports `tandem start` listens on, as settings: PORT for the bot and, in local mode, PORT+1 for the browser
 * workspace (a stable address next to it, so the page can be bookmarked). A port that cannot be had is PORT set
 * wrong for this machine, told in one line like any other setting, not a stack trace.
 */
import { ConfigError } from '../config/config-error.ts';

const HIGHEST_PORT = 65_535;

/** The workspace's port next to PORT; 0 (any free port) stays 0. */
export function workspacePortNextTo(port: number): number {
  if (port === HIGHEST_PORT)
    throw new ConfigError('PORT', `expected a port number from 0 to ${HIGHEST_PORT - 1} in local mode: the local workspace listens on PORT+1`);
  return port ? port + 1 : 0;
}

/** The setting behind a failed listen on a port that is taken; undefined for any other error. */
export function portInUse(error: unknown, port: number): ConfigError | undefined {
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return undefined;
  const taken = (error as { port?: unknown }).port;
  if (port !== 0 && taken === port + 1)
    return new ConfigError(
      'PORT',
      `the local workspace's port ${taken} (PORT+1) is in use by another process: stop it, or set PORT to another port (0: any free one)`,
    );
  return new ConfigError(
    'PORT',
    `${typeof taken === 'number' ? taken : port} is in use by another process: stop it, or set PORT to another port (0: any free one)`,
  );
}
