export { runEval, EVAL_SETTINGS, type EvalReport, type EvalModel } from './run-eval.ts';
export { formatEvalReport, evalPassed } from './format-eval.ts';
export { loadGoldenTasks, parseGoldenTask } from './load-golden.ts';
export { type GoldenTask } from './golden-schema.ts';
export { totalsOf } from './task-report.ts';
