/**
 * Where each wait's message is (decision 037): the surface says where it posted one, the store keeps it,
 * and a board on any replica, or after a restart, links each open wait from the stored value.
 */
import type { AgentContext } from '../context.ts';
import type { WaitLink, WaitPosted } from '../ports/run-store.ts';
import { openWaits } from './open-waits.ts';
import { keyOfRef } from './wait.ts';

/** Only a web link is drawn as one: a stored value is never taken as anything else. */
const WEB_LINK = /^https?:\/\/[^\s<>|]+$/;

/** Best effort, as every surface call: a message whose place could not be stored is found in the thread as before. */
export async function recordWaitPosted(ctx: AgentContext, input: WaitPosted): Promise<void> {
  const { runId, wait, channel, ts } = input;
  const permalink = input.permalink !== null && WEB_LINK.test(input.permalink) ? input.permalink : null;
  await ctx.store
    .recordWaitMessage({ runId, wait: wait.kind, key: keyOfRef(wait), channel, ts, permalink })
    .catch((error: unknown) => ctx.logger.warn({ runId, err: error, wait: wait.kind }, 'could not store where a wait was posted'));
}

/** The run's open waits whose message has a link: what the board links, and only while they wait. */
export async function waitLinks(ctx: AgentContext, runId: string): Promise<WaitLink[]> {
  const run = await ctx.store.getRun(runId);
  if (!run) return [];
  return (await openWaits(ctx, run)).flatMap(({ kind, planVersion, stepId, message }) =>
    message?.permalink && WEB_LINK.test(message.permalink) ? [{ kind, planVersion, stepId, permalink: message.permalink }] : [],
  );
}
