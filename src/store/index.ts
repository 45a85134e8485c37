export { openDatabase, type Database, type Db } from './database.ts';
export { DataDirLockedError } from './data-dir-lock.ts';
export { createRunStore } from './run-store.ts';
export { markSlackEventSeen, forgetSlackEventsBefore } from './slack-events-repository.ts';
export { createSlackInbox, forgetInboxBefore } from './inbox-repository.ts';
export { expireLeasesOfDeadOwners } from './dead-owners-repository.ts';
export { leaseLagSeconds } from './leases-repository.ts';
export { recordFeedback, listFeedback, feedbackByAuthor, type FeedbackRecord } from './feedback-repository.ts';
