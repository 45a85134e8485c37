import type { Config } from '../config/config.ts';
import type { Database } from '../store/index.ts';

/** Where a command's words go: the terminal, or the answer to a command the running bot ran for the CLI. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CommandIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** What a command that reads or prunes the store is run with: its store, opened per command, and its words' way out. */
export interface StoreCommandContext {
  config: Readonly<Config>;
  io: CommandIo;
  /** The configured store, migrated; the caller closes it (a no-op for the running bot's own store). */
  openDatabase(): Promise<Database>;
}

export const terminalContext = (config: Readonly<Config>): StoreCommandContext => ({
  config,
  io: processIo,
  // The store's engines (drizzle, PGlite, postgres) load when a command opens it, not when the CLI starts.
  openDatabase: async () => (await import('../runtime/open-database.ts')).openConfiguredDatabase(config),
});

/** Collects a command's words, for an answer over HTTP. */
export function capturedIo(): CommandIo & { stdout(): string; stderr(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (text) => void out.push(text), err: (text) => void err.push(text), stdout: () => out.join(''), stderr: () => err.join('') };
}
