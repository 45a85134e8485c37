/**
 * Keeps each policy's texts under its hash for `tandem audit` (decision 028), retrying until the store takes them.
 * A save that failed once (the store down at start-up or at a reload) and was never tried again left every later
 * decision under that hash unjudgeable: the audit reports each one as made under a policy whose texts are not stored.
 */
import type { PolicyEngine } from '../../agent/ports/policy.ts';
import type { Logger } from '../../observability/logger.ts';

export interface PolicyTextsKeeper {
  /** Saves the texts now, and again after each failure (the wait doubling up to a minute) until one succeeds. */
  keep(policy: PolicyEngine): void;
  /** Stops retrying (shutdown): a policy still unsaved is saved by the next start that loads it. */
  stop(): void;
}

const MOST_MS = 60_000;

export function policyTextsKeeper(save: (policy: PolicyEngine) => Promise<void>, logger: Logger, firstRetryMs = 1_000): PolicyTextsKeeper {
  const pending = new Map<string, NodeJS.Timeout | undefined>();
  let stopped = false;
  const attempt = async (policy: PolicyEngine, failures: number): Promise<void> => {
    pending.set(policy.hash, undefined);
    try {
      await save(policy);
      pending.delete(policy.hash);
      if (failures > 0) logger.info({ hash: policy.hash.slice(0, 12), failures }, 'policy texts stored for the audit');
    } catch (error) {
      if (stopped) return;
      const waitMs = Math.min(firstRetryMs * 2 ** failures, MOST_MS);
      if (failures === 0)
        logger.error({ err: error, hash: policy.hash.slice(0, 12), retryMs: waitMs }, 'could not store the policy texts for the audit; retrying until it can');
      const timer = setTimeout(() => void attempt(policy, failures + 1), waitMs);
      timer.unref();
      pending.set(policy.hash, timer);
    }
  };
  return {
    keep: (policy) => {
      if (stopped || pending.has(policy.hash)) return;
      void attempt(policy, 0);
    },
    stop: () => {
      stopped = true;
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
