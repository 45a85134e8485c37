export { runEval, EVAL_SETTINGS, type EvalOptions, type EvalReport, type EvalModel } from './run-eval.ts';
export { formatEvalReport, evalPassed } from './format-eval.ts';
export { loadGoldenTasks, parseGoldenTask } from './load-golden.ts';
export { GoldenTaskSchema, type GoldenTask } from './golden-schema.ts';
export { totalsOf, type TaskReport, type EvalTotals } from './task-report.ts';
