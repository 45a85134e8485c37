/**
 * The commands that read or prune the store. In a terminal they open the configured store; while a running bot
 * holds an embedded store (one process may open a PGlite folder), the bot runs them for the CLI on its own store
 * (`bot-forward.ts`, `src/runtime/cli-route.ts`): both parse and run them here, the same way.
 */
import type { CommandOptions } from './command-options.ts';
import type { StoreCommandContext } from './command-io.ts';
import { UsageError } from './usage-error.ts';

export type StoreCommand = (args: string[], options: CommandOptions, context: StoreCommandContext) => Promise<number>;

// Arguments are checked first, then the command's module is loaded: the audit's Cedar and Slack client, say,
// only for `tandem audit`.
export const STORE_COMMANDS: Record<string, StoreCommand> = {
  runs: async (args, options, context) => {
    if (args.length) throw new UsageError(`runs takes no words (got "${args.join(' ')}"); e.g. tandem runs --limit 50`);
    const limit = parseLimit(options.limit);
    return (await import('./store-commands.ts')).runsCommand(context, limit);
  },
  show: async (args, _options, context) => {
    if (args.length > 1) throw new UsageError(`show takes one run id (got "${args.join(' ')}")`);
    return (await import('./store-commands.ts')).showCommand(context, args[0]);
  },
  prune: async (args, options, context) => {
    const before = prunedBefore(args, options.olderThan);
    return (await import('./store-commands.ts')).pruneCommand(context, before);
  },
  audit: async (args, options, context) => {
    const runId = auditedRun(args, options.run);
    return (await import('./audit-command.ts')).auditCommand(context, runId);
  },
  feedback: async (_args, options, context) => (await import('./feedback-command.ts')).feedbackCommand(context, options),
};

/** The name a command goes by in STORE_COMMANDS (`tandem eval --feedback` reads the store; `tandem eval` does not). */
export function storeCommandName(name: string, options: Pick<CommandOptions, 'feedback'>): string | undefined {
  if (name === 'eval') return options.feedback ? 'feedback' : undefined;
  return name !== 'feedback' && Object.hasOwn(STORE_COMMANDS, name) ? name : undefined;
}

/** Runs one store command, turning a usage mistake into its words and exit code 2. */
export async function runStoreCommand(name: string, args: string[], options: CommandOptions, context: StoreCommandContext): Promise<number> {
  try {
    return await STORE_COMMANDS[name]!(args, options, context);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    context.io.err(`tandem: ${error.message}\n`);
    return 2;
  }
}

/** The run `tandem audit` was asked about: an empty id or a stray word must not pass as a whole-store audit. */
function auditedRun(args: string[], run: string | undefined): string | undefined {
  if (args.length) throw new UsageError(`audit takes no words (got "${args.join(' ')}"); for one run: tandem audit --run <runId>`);
  if (run !== undefined && !run.trim()) throw new UsageError('--run: expected a run id (list them with: tandem runs)');
  return run;
}

/** A hundred years covers every run there is; more would put the cut-off before year 1, a date the database refuses. */
const MAX_PRUNE_DAYS = 36_500;

/** The cut-off of `tandem prune`: a whole number of days (0: every finished run; what the audit reads is kept either way). */
function prunedBefore(args: string[], olderThan: string | undefined, now = new Date()): Date {
  if (args.length) throw new UsageError(`prune takes no words (got "${args.join(' ')}"); e.g. tandem prune --older-than 90`);
  if (olderThan === undefined) throw new UsageError('prune: expected --older-than <days>, e.g. tandem prune --older-than 90');
  if (!/^\d+$/.test(olderThan)) throw new UsageError('--older-than: expected a whole number of days, e.g. 90');
  if (Number(olderThan) > MAX_PRUNE_DAYS) throw new UsageError(`--older-than: expected at most ${MAX_PRUNE_DAYS} days (a hundred years), e.g. 90`);
  return new Date(now.getTime() - Number(olderThan) * 86_400_000);
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return 20;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit: expected a whole number from 1 to 1000');
  return limit;
}
