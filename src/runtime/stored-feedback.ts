import type { FeedbackLog } from '../bot/ports.ts';
import type { Metrics } from '../observability/metrics.ts';
import { recordFeedback, type Db } from '../store/index.ts';

/** Feedback kept in the store, counted in /metrics the first time each person gives it on a run. */
export function storedFeedback(db: Db, metrics: Metrics): FeedbackLog {
  return {
    async record(input) {
      const recorded = await recordFeedback(db, input);
      if (recorded) metrics.feedback.inc({ value: input.value, author_kind: input.authorKind });
      return recorded;
    },
  };
}
