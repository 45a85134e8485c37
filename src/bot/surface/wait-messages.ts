/** Where a wait for a person was posted: the newest message in its run's thread whose buttons answer that wait. */
import type { WaitForPerson } from '../../agent/ports/run-store.ts';
import { decodePlanRef } from '../views/button-values.ts';
import { PLAN_APPROVE_ACTION } from '../views/plan/plan-message.ts';
import { decodeReassignButton, REASSIGN_ACTION } from '../views/run/reassign.ts';
import type { SlackClient } from './slack-client.ts';
import { buttonsOf, readThread, type ThreadButton, type ThreadMessage } from './thread-messages.ts';

/** Whether a button is one of this wait's: the plan's Approve for an approval, Reassign for the rest. */
export function answersWait(wait: WaitForPerson['wait'], button: ThreadButton): boolean {
  if (wait.kind === 'approval') {
    const ref = button.action_id === PLAN_APPROVE_ACTION ? decodePlanRef(button.value) : undefined;
    return ref?.runId === wait.runId && ref.planVersion === wait.planVersion;
  }
  const ref = button.action_id === REASSIGN_ACTION ? decodeReassignButton(button.value) : undefined;
  return JSON.stringify(ref) === JSON.stringify(wait);
}

/** The permalink of each wait's message, when it is found (one thread read per run); the caller links the thread otherwise. */
export async function waitPermalinks(client: SlackClient, waits: readonly WaitForPerson[]): Promise<Map<WaitForPerson, string>> {
  const links = new Map<WaitForPerson, string>();
  const threads = new Map<string, ThreadMessage[]>();
  for (const item of waits) {
    const { channel, threadTs } = item.run.conversation;
    const key = `${channel}/${threadTs}`;
    if (!threads.has(key)) {
      threads.set(key, await readThread(client, { channel, threadTs }).catch((): ThreadMessage[] => []));
    }
    const message = [...threads.get(key)!].reverse().find((m) => buttonsOf(m).some((button) => answersWait(item.wait, button)));
    if (!message?.ts) continue;
    const permalink = await client.chat
      .getPermalink({ channel, message_ts: message.ts })
      .then((answer) => answer.permalink)
      .catch(() => undefined);
    if (permalink) links.set(item, permalink);
  }
  return links;
}
