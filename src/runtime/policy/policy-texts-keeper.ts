/**
 * Keeps each policy's texts under its hash for `tandem audit` (decision 028), retrying until the store takes them.
 * A save that failed once (the store down at start-up or at a reload) and was never tried again left every later
 * decision under that hash unjudgeable: the audit reports each one as made under a policy whose texts are not stored.
 * At shutdown a policy still unsaved is tried once more; if the store is still down, the log says which policy was not
 * stored (its hash, and the error's code or name only: a connection error's message may name the database's address).
 */
import type { PolicyEngine } from '../../agent/ports/policy.ts';
import type { Logger } from '../../observability/logger.ts';

export interface PolicyTextsKeeper {
  /** Saves the texts now, and again after each failure (the wait doubling up to a minute) until one succeeds. */
  keep(policy: PolicyEngine): void;
  /** Stops retrying (shutdown), after one more try of each policy not yet stored, bounded so a hung store cannot hold the exit. */
  stop(): Promise<void>;
}

const MOST_MS = 60_000;
/** How long the last try at shutdown may take. */
const LAST_TRY_MS = 5_000;

interface Unsaved {
  policy: PolicyEngine;
  /** The next try, while waiting for it. */
  timer: NodeJS.Timeout | undefined;
  /** The try under way, if one is. */
  trying: Promise<void> | undefined;
}

export function policyTextsKeeper(
  save: (policy: PolicyEngine) => Promise<void>,
  logger: Logger,
  firstRetryMs = 1_000,
  lastTryMs = LAST_TRY_MS,
): PolicyTextsKeeper {
  const unsaved = new Map<string, Unsaved>();
  let stopped = false;
  const attempt = async (policy: PolicyEngine, failures: number): Promise<void> => {
    const entry: Unsaved = unsaved.get(policy.hash) ?? { policy, timer: undefined, trying: undefined };
    unsaved.set(policy.hash, entry);
    entry.timer = undefined;
    try {
      entry.trying = save(policy);
      await entry.trying;
      unsaved.delete(policy.hash);
      if (failures > 0) logger.info({ hash: policy.hash.slice(0, 12), failures }, 'policy texts stored for the audit');
    } catch (error) {
      if (stopped) return;
      const waitMs = Math.min(firstRetryMs * 2 ** failures, MOST_MS);
      if (failures === 0)
        logger.error({ err: error, hash: policy.hash.slice(0, 12), retryMs: waitMs }, 'could not store the policy texts for the audit; retrying until it can');
      entry.timer = setTimeout(() => void attempt(policy, failures + 1), waitMs);
      entry.timer.unref();
    } finally {
      entry.trying = undefined;
    }
  };
  const lastTry = async ({ policy, trying }: Unsaved): Promise<void> => {
    // A try under way may still succeed: it counts as the last one.
    const last = (trying ?? Promise.reject(new Error('not tried'))).catch(() => save(policy));
    try {
      await withinMs(last, lastTryMs);
    } catch (error) {
      logger.error(
        { hash: policy.hash.slice(0, 12), reason: reasonOf(error) },
        'the policy texts are not stored: the store could not take them before shutdown; the next start that loads this policy stores them, and until then the audit cannot judge decisions made under it',
      );
    }
  };
  return {
    keep: (policy) => {
      if (stopped || unsaved.has(policy.hash)) return;
      void attempt(policy, 0);
    },
    stop: async () => {
      stopped = true;
      const left = [...unsaved.values()];
      unsaved.clear();
      for (const entry of left) clearTimeout(entry.timer);
      await Promise.all(left.map(lastTry));
    },
  };
}

function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'timeout' })), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What went wrong, without the message: a code (ECONNREFUSED, 57P01, timeout) or the error's name. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code) return code;
  return error instanceof Error ? error.name : 'unknown';
}
