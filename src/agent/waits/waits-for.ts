/**
 * "Waiting for you": every open wait a person may answer (openWaits; asked of the policy or the settings
 * the way the answer asks), plus those handed to them, with a link to its message when one is stored.
 * Read-only: nothing is stored or sent.
 */
import type { AgentContext } from '../context.ts';
import { WAITING_RUN_STATUSES } from '../model/run-moves.ts';
import type { RunRecord, WaitForPerson } from '../ports/run-store.ts';
import { openWaits } from './open-waits.ts';

/** The newest runs looked at: App Home shows at most 15 waits. */
const LOOKED_AT = 50;

export async function waitsFor(ctx: AgentContext, userId: string): Promise<WaitForPerson[]> {
  const runs = await ctx.store.listRuns({ limit: LOOKED_AT, statuses: WAITING_RUN_STATUSES });
  const found: WaitForPerson[] = [];
  for (const run of runs) {
    // Another person's direct message with the bot is not theirs to see.
    if (run.requester !== userId && run.conversation.channel.startsWith('D')) continue;
    found.push(...(await personWaits(ctx, run, userId)));
  }
  return found;
}

/** The run's open waits this person may answer or was handed. */
async function personWaits(ctx: AgentContext, run: RunRecord, userId: string): Promise<WaitForPerson[]> {
  const found: WaitForPerson[] = [];
  for (const wait of await openWaits(ctx, run)) {
    const handedToMe = wait.addressee?.to === userId;
    if (!((handedToMe && wait.addresseeMayAnswer) || (await wait.mayAnswer(userId)).ok)) continue;
    const permalink = wait.message?.permalink;
    found.push({ run, wait: wait.ref, ...(handedToMe ? { handedBy: wait.addressee!.by } : {}), ...(permalink ? { permalink } : {}) });
  }
  return found;
}
