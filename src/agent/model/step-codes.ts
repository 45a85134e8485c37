/** Error codes the agent writes on step records and reads back elsewhere (board, summaries). */

/** A person skipped the step from an escalation; its result may still stand so dependants can run. */
export const SKIPPED_BY_PERSON = 'skipped-by-person';
/**
^ * A step ran but its check could not be made (the evaluator model was down, or said
 * it cannot tell): recorded as failed with its output, and escalated before what depends on it starts.
 * The message starts with `unchecked:`; a person's Skip accepts the result as it is, unchecked.
 */
export const UNCHECKED = 'unchecked';
