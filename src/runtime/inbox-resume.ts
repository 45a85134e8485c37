import type { Logger } from '../observability/logger.ts';

/**
 * Handles the Slack requests that were acknowledged but never handled: at once (the ones this store's
 * last process left), then every few seconds when replicas share the store (a peer died while
 * handling one and its lease ran out). One pass at a time. Returns the stop function.
 */
export function resumeInboxPeriodically(input: { resumeInbox(): Promise<number>; everyMs: number; repeat: boolean; logger: Logger }): () => Promise<void> {
  let pass: Promise<void> | undefined;
  const run = () => {
    pass ??= input
      .resumeInbox()
      .then((count) => void (count && input.logger.info({ count }, 'handled Slack requests left unfinished')))
      .catch((error: unknown) => input.logger.warn({ err: error }, 'handling unfinished Slack requests failed'))
      .finally(() => (pass = undefined));
    return pass;
  };
  void run();
  const timer = input.repeat ? setInterval(() => void run(), input.everyMs) : undefined;
  timer?.unref();
  return async () => {
    clearInterval(timer);
    await pass;
  };
}
