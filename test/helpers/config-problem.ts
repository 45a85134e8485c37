import { ConfigError, loadConfig } from '../../src/config/config.ts';

/** The one line these settings stop start-up with, or 'no error'. */
export function configProblem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    return error instanceof ConfigError ? error.message : `unexpected ${String(error)}`;
  }
  return 'no error';
}
