/**
 * Runbooks saved on one replica reach the others: each replica reloads its catalog now and then (a save
 * reloads the saving replica's own catalog at once). Returns the stop function.
 */
export function refreshRunbooksPeriodically(
  catalog: { reload(): Promise<void> },
  logger: { warn(obj: object, msg?: string): void },
  intervalMs = 60_000,
): () => Promise<void> {
  let reloading: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (reloading) return; // a slow reload is not stacked
    reloading = catalog
      .reload()
      .catch((error: unknown) => logger.warn({ err: error }, 'runbook-reload-failed'))
      .finally(() => (reloading = undefined));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await reloading;
  };
}
