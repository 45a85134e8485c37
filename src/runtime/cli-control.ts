import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * How the CLI reaches a running bot that holds the embedded store: the bot's port on 127.0.0.1 and a token made at
 * start-up, in a file of DATA_DIR only its owner may read (the same people who may read the store's own files).
 */
const CONTROL_FILE = 'tandem-cli.json';

const Control = z.object({ pid: z.number().int(), port: z.number().int().min(1).max(65_535), token: z.string().regex(/^[0-9a-f]{64}$/) });
export type CliControl = z.infer<typeof Control>;

export const newCliToken = (): string => randomBytes(32).toString('hex');

/** Writes the control file once the bot listens; the returned function removes it at stop. */
export function writeCliControl(dataDir: string, port: number, token: string): () => void {
  const file = path.join(dataDir, CONTROL_FILE);
  writeFileSync(file, JSON.stringify({ pid: process.pid, port, token } satisfies CliControl), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** The running bot's control file, if it left a readable one. */
export function readCliControl(dataDir: string): CliControl | undefined {
  try {
    const parsed = Control.safeParse(JSON.parse(readFileSync(path.join(dataDir, CONTROL_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
