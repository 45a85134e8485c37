import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.ts';
import { processSettings } from '../config/environment.ts';
import { DataDirUnwritableError } from '../store/engine/data-dir-check.ts';
import { DataDirLockedError } from '../store/engine/data-dir-lock.ts';
import { StoreUnreachableError } from '../store/engine/store-unreachable.ts';

const USAGE = `Usage: tandem <command> [options]

Commands:
  start [--local]        run the bot (Slack Socket Mode or HTTP; --local: the browser workspace)
  start --demo           try Tandem first: the browser workspace with a scripted model and a GitHub
                         sandbox on this machine (its data under DATA_DIR/demo); nothing leaves it
  migrate                apply database migrations and exit
  plan "<task>"          print the plan the planner would make; runs nothing
  runs [--limit N]       list recent runs
  show <runId>           a run's plan versions, approvals, steps and events
  eval [--recorded|--record] [--json]
                         run the golden planner tasks in eval/golden
  eval --feedback [--json]
                         people's feedback on run summaries, per planner model and per runbook
  audit [--run <runId>]  check every run's approval invariants; prints each violation, exits 1 if any
                         (2: a usage mistake)
  policy check [path]    parse and validate a Cedar policy (default TANDEM_POLICY); file:line:column errors
  policy explain --user U… --action approve [--tool …] [--repo owner/name] [--target …] [--group S…]
                 [--requester U…] [--risk read|write|destructive]
                         the decision and the rules behind it; a built-in tool's risk is its own,
                         --risk is for another tool (an MCP tool)
  policy test <cases.yaml> [--policy path]
                         each case's expected permit or deny; exits 1 on a mismatch
  prune --older-than <days>
                         remove the event logs, step outputs and delivered messages of runs that
                         finished before then; what audit and show need of them stays
  help                   this text

Configuration comes from the environment and a .env file; see README.md.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      limit: { type: 'string' },
      local: { type: 'boolean' },
      demo: { type: 'boolean' },
      recorded: { type: 'boolean' },
      record: { type: 'boolean' },
      json: { type: 'boolean' },
      run: { type: 'string' },
      feedback: { type: 'boolean' },
      'older-than': { type: 'string' },
      policy: { type: 'string' },
      user: { type: 'string' },
      action: { type: 'string' },
      tool: { type: 'string' },
      repo: { type: 'string' },
      target: { type: 'string' },
      risk: { type: 'string' },
      requester: { type: 'string' },
      channel: { type: 'string' },
      group: { type: 'string', multiple: true },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 1;
  }
  // Loaded only past `help`: the settings' schema (zod) and the commands, each of which loads what it uses.
  const [{ loadConfig }, { runCommand }] = await Promise.all([import('../config/config.ts'), import('./commands.ts')]);
  const config = loadConfig(processSettings(), { local: command === 'start' && Boolean(values.local || values.demo) });
  return runCommand(
    command,
    rest,
    {
      limit: values.limit,
      local: values.local ?? false,
      demo: values.demo ?? false,
      recorded: values.recorded ?? false,
      record: values.record ?? false,
      json: values.json ?? false,
      run: values.run,
      feedback: values.feedback ?? false,
      olderThan: values['older-than'],
      policy: values.policy,
      user: values.user,
      action: values.action,
      tool: values.tool,
      repo: values.repo,
      target: values.target,
      risk: values.risk,
      requester: values.requester,
      channel: values.channel,
      group: values.group,
    },
    config,
  );
}

try {
  process.exitCode = await main(process.argv.slice(2));
  // A stopped server has closed what it owns; a library's idle retry timer must not keep the process up.
  setTimeout(() => process.exit(), 500).unref();
} catch (error) {
  // Operators get one line that names the problem; stack traces are for bugs, not settings.
  if (error instanceof ConfigError) {
    process.stderr.write(`tandem: configuration error: ${error.message}\n`);
  } else if (error instanceof DataDirLockedError || error instanceof DataDirUnwritableError || error instanceof StoreUnreachableError) {
    process.stderr.write(`tandem: ${error.message}\n`);
  } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
    // A usage mistake exits 2, as every command's own do: 1 would read as "violations found" from `tandem audit --run`.
    process.stderr.write(`tandem: ${error.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`tandem: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exitCode = process.exitCode || 1;
}
