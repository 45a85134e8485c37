import { planTask } from '../agent/planning/plan-task.ts';
import type { Config } from '../config/config.ts';
import { createLlmClient } from '../integrations/llm/index.ts';
import { createLogger } from '../observability/logger.ts';
import { loadRunbookFiles, matchRunbook } from '../runbooks/index.ts';
import { buildTools } from '../runtime/build-tools.ts';
import { UsageError } from './usage-error.ts';
import { terminalWords } from '../config/setting-variables.ts';
import { formatPlan } from './format-plan.ts';
import { terminalSafe } from './terminal-safe.ts';

/** `tandem plan "<task>"`: what the planner (or a runbook file) would propose; nothing is stored or run. */
export async function planCommand(config: Readonly<Config>, task: string): Promise<number> {
  if (!task.trim()) throw new UsageError('plan: expected a task, e.g. tandem plan "cut release v2.4.0 of acme/api"');
  // Logs go to stderr so the plan on stdout can be piped.
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, secrets: config.secrets, destination: process.stderr });
  const llm = createLlmClient({ config, logger, onUsage: () => {} });
  const { tools, close } = await buildTools(config, { llm, slackClient: undefined, logger });
  try {
    const files = await loadRunbookFiles(config.runbooksDir);
    const runbooks = {
      match(text: string) {
        const found = matchRunbook(text, files.runbooks);
        return found ? { name: found.runbook.name, plan: found.plan } : undefined;
      },
    };
    const result = await planTask(
      { llm, tools, settings: { budgets: config.budgets, secrets: config.secrets, repositories: config.github.repos }, runbooks },
      { task, requester: 'cli' },
    );
    if (!result.ok) {
      process.stderr.write(`tandem: ${terminalSafe(terminalWords(result.error.message))}\n`);
      return 1;
    }
    process.stdout.write(`${formatPlan(result.value)}\n`);
    return 0;
  } finally {
    await close();
  }
}
