export { createRunbookCatalog, type RunbookCatalog, type CatalogMatch, type SaveRunbookInput } from './catalog.ts';
export { loadRunbookFiles, type RunbookProblem } from './load-runbooks.ts';
export { matchRunbook, type RunbookMatch } from './match-runbook.ts';
export { similarPlans, type PastRun, type SimilarPlan } from './similar-plans.ts';
export { RunbookFileSchema, type Runbook } from './runbook.ts';
