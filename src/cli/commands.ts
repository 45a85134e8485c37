import type { CommandOptions } from './command-options.ts';
import type { Config } from '../config/config.ts';
import { DataDirLockedError } from '../store/engine/data-dir-lock.ts';
import { processIo, terminalContext } from './command-io.ts';
import { runStoreCommand, storeCommandName } from './store-command-table.ts';
import { UsageError } from './usage-error.ts';

type Command = (args: string[], options: CommandOptions, config: Readonly<Config>) => Promise<number>;

const commands: Record<string, Command> = {
  // Each command loads what it uses when it runs: `tandem runs` never loads Bolt, Cedar or the model clients.
  migrate: async (_args, _options, config) => (await import('./store-commands.ts')).migrateCommand(terminalContext(config)),
  start: async (_args, options, config) => (await import('./start.ts')).startCommand(config, options),
  plan: async (args, _options, config) => (await import('./plan-command.ts')).planCommand(config, args.join(' ')),
  eval: async (_args, options, config) => (await import('./eval-command.ts')).evalCommand(config, options),
  policy: async (args, options, config) => (await import('./policy-command.ts')).policyCommand(args, options, config),
};

/** A store command, run here or, while a running bot holds the embedded store, by that bot. */
async function storeCommand(name: string, args: string[], options: CommandOptions, config: Readonly<Config>): Promise<number> {
  try {
    return await runStoreCommand(name, args, options, terminalContext(config));
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    const { runInRunningBot } = await import('./bot-forward.ts');
    const answered = await runInRunningBot(error, { command: name, args, options }, processIo);
    if (answered === undefined) throw error;
    return answered;
  }
}

export async function runCommand(name: string, args: string[], options: CommandOptions, config: Readonly<Config>): Promise<number> {
  const stored = storeCommandName(name, options);
  if (stored) return storeCommand(stored, args, options, config);
  const command = commands[name];
  if (!command) {
    process.stderr.write(`tandem: unknown command "${name}". Try: tandem help\n`);
    return 2;
  }
  try {
    return await command(args, options, config);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`tandem: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
