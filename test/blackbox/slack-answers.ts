/**
 * What a person does and reads in Slack beyond a mention and a click: a slash command's answer, the
 * Modify modal, a stale click from a client that still shows an older message. Nothing here imports
 * product code.
 */
import { expect } from 'vitest';
import { stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { buttonsOf, visibleText, waitFor } from './harness.ts';
import type { Stack } from './stack.ts';

/** Everything that came back for a slash command: the HTTP ack body, response_url posts, ephemerals and channel messages. */
export async function commandAnswer(stack: Stack, user: string, channel: string, text: string): Promise<string> {
  const { slack } = stack;
  const responsesBefore = slack.model.responses.length;
  const ephemeralsBefore = slack.model.ephemerals.length;
  const messagesBefore = slack.model.messages.length;
  const response = await stack.tandem.driver.command({ user, channel, text });
  expect(response.status).toBe(200);
  const collect = () =>
    [
      typeof response.body === 'string' ? response.body : visibleText(response.body as { text?: string; blocks?: unknown[] }),
      ...slack.model.responses.slice(responsesBefore).map((r) => visibleText(r.body as { text?: string; blocks?: unknown[] })),
      ...slack.model.ephemerals
        .slice(ephemeralsBefore)
        .filter((e) => e.channel === channel)
        .map(visibleText),
      ...slack.model.messages
        .slice(messagesBefore)
        .filter((m) => m.channel === channel)
        .map(visibleText),
    ]
      .join('\n')
      .trim();
  await waitFor(slack, () => collect().length > 0, `an answer to /tandem ${text}`, 10_000).catch(() => undefined);
  return collect();
}

/** A copy of a message as a person's client shows it now (later edits by the bot do not change it). */
export function snapshot(message: FakeMessage): FakeMessage {
  return structuredClone(message);
}

/** Clicks a button of a message as the person's client shows it in `seen` (possibly older than Slack's copy). */
export function clickSeen(stack: Stack, seen: FakeMessage, text: string, user: string) {
  const button = buttonsOf(seen).find((b) => b.text.trim().toLowerCase() === text.toLowerCase());
  if (!button) throw new Error(`no "${text}" button in the message as seen`);
  return stack.tandem.driver.click({
    user,
    channel: seen.channel,
    messageTs: seen.ts,
    threadTs: seen.threadTs,
    actionId: button.actionId,
    value: button.value,
    blockId: button.blockId,
    message: { text: seen.text, blocks: seen.blocks },
  });
}

export interface OpenModal {
  view: {
    id: string;
    callback_id: string;
    private_metadata?: string;
    blocks: unknown[];
  };
  yamlBlock: string;
  yaml: string;
}

/** Clicks Modify and waits for the modal with the steps as YAML. */
export async function openModify(stack: Stack, planMessage: FakeMessage, user: string, clickModify: () => Promise<unknown>): Promise<OpenModal> {
  const { slack } = stack;
  const viewsBefore = slack.model.views.size;
  await clickModify();
  const opened = await waitFor(
    slack,
    () => [...slack.model.views.values()].slice(viewsBefore).find((v) => JSON.stringify(v.view).includes('tool')),
    `the modal for ${user}`,
  );
  const view = {
    id: opened.id,
    ...(opened.view as {
      callback_id: string;
      private_metadata?: string;
      blocks: unknown[];
    }),
  };
  const inputs = view.blocks.filter((b) => (b as { type: string }).type === 'input') as { block_id: string; element: { initial_value?: string } }[];
  const yaml = inputs.find((b) => (b.element.initial_value ?? '').includes('tool'));
  if (!yaml) throw new Error(`no YAML field in the modal of ${planMessage.ts}`);
  return {
    view,
    yamlBlock: yaml.block_id,
    yaml: Object.values(stateFromView(view)[yaml.block_id]!)[0]!.value!,
  };
}

/** Submits the modal with `yaml` in its YAML field. */
export function submitYaml(stack: Stack, modal: OpenModal, user: string, yaml: string) {
  return stack.tandem.driver.submitView({
    user,
    view: modal.view,
    values: stateFromView(modal.view, { [modal.yamlBlock]: yaml }),
  });
}

/** The bot's ephemerals to `user` in `channel` after index `from`, as text. */
export function ephemeralTexts(stack: Stack, user: string, channel: string, from = 0): string[] {
  return stack.slack.model
    .ephemeralsFor(user)
    .slice(from)
    .filter((e) => e.channel === channel)
    .map(visibleText);
}
