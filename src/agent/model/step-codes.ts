/** Error codes the agent writes on step records and reads back elsewhere (board, summaries). */

/** A person skipped the step from an escalation; its result may still stand so dependants can run. */
export const SKIPPED_BY_PERSON = 'skipped-by-person';
