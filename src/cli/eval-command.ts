/** `tandem eval [--recorded]`: the golden planner tasks in eval/golden, with a live model or recorded answers. */
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.ts';
import { evalPassed, formatEvalReport, runEval, EVAL_SETTINGS, type EvalModel } from '../eval/index.ts';
import { createLlmClient } from '../integrations/llm/index.ts';
import { createLogger } from '../observability/logger.ts';
import type { CommandOptions } from './command-options.ts';

// Found relative to this file, so `tandem eval` works from any folder.
const EVAL_DIR = fileURLToPath(new URL('../../eval', import.meta.url));

export type EvalCommandOptions = CommandOptions;

export async function evalCommand(config: Readonly<Config>, options: EvalCommandOptions): Promise<number> {
  const model = options.recorded ? ({ kind: 'recorded' } as const) : liveModel(config, options.record);
  if (!model) {
    process.stderr.write(
      'tandem eval: no planner model is configured. Set PLANNER_MODEL (e.g. openai:gpt-4o or anthropic:claude-sonnet-4-5) with OPENAI_API_KEY or ANTHROPIC_API_KEY, ' +
        'or run `tandem eval --recorded` to replay the recorded answers in eval/recorded offline.\n',
    );
    return 1;
  }
  const settings =
    model.kind === 'live'
      ? { ...EVAL_SETTINGS, budgets: config.budgets, confidenceThreshold: config.confidenceThreshold, secrets: config.secrets }
      : EVAL_SETTINGS;
  const report = await runEval({
    goldenDir: `${EVAL_DIR}/golden`,
    recordedDir: `${EVAL_DIR}/recorded`,
    model,
    settings,
    onTask: options.json ? undefined : (task) => process.stderr.write(`${task.passed ? 'pass' : 'FAIL'} ${task.name}\n`),
  });
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatEvalReport(report)}\n`);
  return evalPassed(report) ? 0 : 1;
}

function liveModel(config: Readonly<Config>, record: boolean): EvalModel | undefined {
  const planner = config.models.planner;
  if (!planner) return undefined;
  // Logs go to stderr so the report on stdout can be piped.
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, secrets: config.secrets, destination: process.stderr });
  const llm = createLlmClient({ config, logger, onUsage: () => {} });
  return { kind: 'live', llm, source: `${planner.provider}:${planner.model}`, record };
}
