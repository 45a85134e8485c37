/**
 * A person's steps through a modal and its replies, as the Slack tests take them: click a button that opens a
 * modal, fill in Reassign's person picker and submit it, and read the private reply a click got.
 */
import { expect } from 'vitest';
import { REASSIGN_BLOCK, REASSIGN_CALLBACK, REASSIGN_INPUT } from '../../src/bot/views/run/reassign.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import type { SlackE2E } from './slack-e2e.ts';

const viewsOpened = (e: SlackE2E) => e.fake.calls.filter((c) => c.method === 'views.open').length;

/**
 * Clicks a button that opens a modal and returns the modal Slack shows. `value` sends a click with a value of
 * the test's own (a forged or stale button) instead of the one the message carries.
 */
export async function openModal(e: SlackE2E, message: FakeMessage, user: string, actionId: string, value?: string) {
  const opened = viewsOpened(e);
  if (value === undefined) await e.driver.clickButtonIn(message, actionId, user);
  else await e.driver.click({ user, channel: message.channel, messageTs: message.ts, threadTs: message.threadTs, actionId, value });
  await e.fake.waitUntil(() => viewsOpened(e) > opened, 5000, 'the modal');
  return [...e.fake.model.views.values()].at(-1)!;
}

export type OpenedModal = Awaited<ReturnType<typeof openModal>>;

/** Submits Reassign's modal with `to` picked, as `by`; Slack's request is acknowledged either way. */
export async function submitReassign(e: SlackE2E, modal: OpenedModal, by: string, to: string) {
  const response = await e.driver.submitView({
    user: by,
    view: { id: modal.id, callback_id: REASSIGN_CALLBACK, private_metadata: String(modal.view.private_metadata) },
    values: { [REASSIGN_BLOCK]: { [REASSIGN_INPUT]: { type: 'users_select', selected_user: to } } },
  });
  expect(response.status).toBe(200);
}

/** Waits for the person's newest ephemeral after the `before` they already had, and returns its text. */
export async function newEphemeral(e: SlackE2E, user: string, before: number): Promise<string> {
  await e.fake.waitUntil(() => e.fake.model.ephemeralsFor(user).length > before, 5000, `a refusal for ${user}`);
  return e.fake.model.ephemeralsFor(user).at(-1)!.text;
}
