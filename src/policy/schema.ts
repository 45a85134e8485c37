import { readFileSync } from 'node:fs';

/** The schema ships as documentation (docs/policy/tandem.cedarschema) and is the one the engine validates against. */
export const SCHEMA_FILE = 'docs/policy/tandem.cedarschema';

let cached: string | undefined;

/** Read once: from src/policy or dist/policy, the repository root is two folders up. */
export function tandemSchema(): string {
  cached ??= readFileSync(new URL(`../../${SCHEMA_FILE}`, import.meta.url), 'utf8');
  return cached;
}
