/**
 * What the Slack tests look for in a thread, said once: which message is a plan, a summary, which has buttons,
 * and the fake's current copy of a message or a person's ephemerals.
 */
import type { FakeMessage, SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';

type WithBlocks = { blocks?: unknown[] };

export const blocksText = (m: WithBlocks) => JSON.stringify(m.blocks ?? []);

/** The message still offers a decision: a button other than View full plan (which a decided plan keeps). */
export const hasButtons = (m: WithBlocks) =>
  (m.blocks ?? []).some(
    (b) =>
      (b as { type?: string }).type === 'actions' &&
      ((b as { elements?: { action_id?: string }[] }).elements ?? []).some((element) => element.action_id !== 'plan-view-full'),
  );

/** A plan message of this version that can still be decided (it has its buttons). */
export const isPlanVersion = (version: number) => (m: FakeMessage) => m.text.startsWith(`Plan v${version}:`) && hasButtons(m);

export const isPlan = isPlanVersion(1);

/** A run's summary reply, whatever its outcome (each outcome has its own leading emoji). */
export const isSummary = (m: FakeMessage) => /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good|hourglass): /.test(m.text);

/**
 * Readers bound to the test's current fake Slack, which is made again before each test (hence a getter).
 * `current` is the message as it is now (after every update); `ephemerals` is all a person was shown privately.
 */
export function slackReaders(fake: () => SlackFakeServer, channel = 'C1') {
  return {
    current: (m: FakeMessage) => fake().model.findMessage(channel, m.ts)!,
    ephemerals: (user: string) =>
      fake()
        .model.ephemeralsFor(user)
        .map((x) => x.text)
        .join('\n'),
  };
}
