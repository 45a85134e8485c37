export { createRunbookCatalog } from './catalog.ts';
export { loadRunbookFiles } from './load-runbooks.ts';
export { matchRunbook } from './match-runbook.ts';

