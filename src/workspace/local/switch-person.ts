import type { z } from 'zod';
import type { ActionAnswer, BrowserContext } from './browser-actions.ts';
import type { SwitchPerson } from './people.ts';

/**
 * Act as another of the workspace's people (the demo's requester, approver, bystander). Reached only
 * with the workspace key like every browser action; an open modal belongs to the person who opened it,
 * so it closes.
 */
export function switchPerson(ctx: BrowserContext, input: z.infer<typeof SwitchPerson>): ActionAnswer {
  if (!ctx.people.switchTo(input.id)) return { status: 404, body: { ok: false, error: 'There is no such person in this workspace.' } };
  ctx.modal.close();
  ctx.feed.changed();
  return { status: 200, body: { ok: true, me: ctx.people.current() } };
}
