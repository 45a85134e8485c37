import type { CommandOptions } from './command-options.ts';
import type { Config } from '../config/config.ts';
import { migrateCommand, pruneCommand, runsCommand, showCommand } from './store-commands.ts';
import { UsageError } from './usage-error.ts';

type Command = (args: string[], options: CommandOptions, config: Readonly<Config>) => Promise<number>;

const commands: Record<string, Command> = {
  migrate: (_args, _options, config) => migrateCommand(config),
  runs: (_args, options, config) => runsCommand(config, parseLimit(options.limit)),
  show: (args, _options, config) => showCommand(config, args[0]),
  start: async (_args, options, config) => (await import('./start.ts')).startCommand(config, options),
  plan: async (args, _options, config) => (await import('./plan-command.ts')).planCommand(config, args.join(' ')),
  eval: async (_args, options, config) =>
    options.feedback
      ? (await import('./feedback-command.ts')).feedbackCommand(config, options)
      : (await import('./eval-command.ts')).evalCommand(config, options),
  prune: (args, options, config) => pruneCommand(config, prunedBefore(args, options.olderThan)),
  policy: async (args, options, config) => (await import('./policy-command.ts')).policyCommand(args, options, config),
  audit: async (args, options, config) => (await import('./audit-command.ts')).auditCommand(config, auditedRun(args, options.run)),
};

/** The run `tandem audit` was asked about: an empty id or a stray word must not pass as a whole-store audit. */
function auditedRun(args: string[], run: string | undefined): string | undefined {
  if (args.length) throw new UsageError(`audit takes no words (got "${args.join(' ')}"); for one run: tandem audit --run <runId>`);
  if (run !== undefined && !run.trim()) throw new UsageError('--run: expected a run id (list them with: tandem runs)');
  return run;
}

/** The cut-off of `tandem prune`: only a whole number of days; pruning everything by a slip is not offered. */
function prunedBefore(args: string[], olderThan: string | undefined, now = new Date()): Date {
  if (args.length) throw new UsageError(`prune takes no words (got "${args.join(' ')}"); e.g. tandem prune --older-than 90`);
  if (olderThan === undefined) throw new UsageError('prune: expected --older-than <days>, e.g. tandem prune --older-than 90');
  if (!/^\d+$/.test(olderThan) || Number(olderThan) < 1) throw new UsageError('--older-than: expected a whole number of days, at least 1');
  return new Date(now.getTime() - Number(olderThan) * 86_400_000);
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return 20;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit: expected a whole number from 1 to 1000');
  return limit;
}

export async function runCommand(name: string, args: string[], options: CommandOptions, config: Readonly<Config>): Promise<number> {
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
