/**
 * The database tables, by role (one file each under schema/). drizzle-kit reads this file for migrations;
 * the repositories import tables from here.
 */
export { runs, planVersions, approvals, events, llmUsage, runFeedback, policyTexts } from './schema/run-tables.ts';
export { steps, stepAttempts, targetConfirmations } from './schema/step-tables.ts';
export { escalations, questions, waitMessages } from './schema/human-tables.ts';
export { slackEventsSeen, slackInbox, outbox, reminders } from './schema/delivery-tables.ts';
export { runbooks, schedules, cronFires, replicas } from './schema/operation-tables.ts';
