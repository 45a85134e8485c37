/**
 * The board reads the stored links of wait messages only when what waits changes; once nothing waits, the next
 * wait is read afresh even when it looks like the last one (the same step failing again, and its new escalation
 * posted by another replica, whose link this process never saw).
 */
import { describe, expect, it } from 'vitest';
import type { WaitLink, WaitMessagesPort } from '../../src/agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../src/agent/ports/surface.ts';
import type { SlackClient } from '../../src/bot/surface/slack-client.ts';
import { WaitLinks } from '../../src/bot/surface/wait-links.ts';

const step = (status: BoardStep['status'], waitingFor: BoardStep['waitingFor'] = null): BoardStep => ({
  stepId: 's1',
  title: 'Deploy',
  tool: 'deploy',
  kind: 'forward',
  status,
  elapsedMs: null,
  url: null,
  note: null,
  waitingFor,
});
const board = (runStatus: BoardState['runStatus'], s1: BoardStep): BoardState => ({
  runId: 'run_1',
  goal: 'Deploy',
  planVersion: 1,
  runStatus,
  steps: [s1],
  startedAt: new Date(0),
  elapsedMs: 0,
});

describe('the links a board shows to its wait messages', () => {
  it('are read again for a wait that looks like one answered before, once nothing waited in between', async () => {
    let stored: WaitLink[] = [{ kind: 'escalation', planVersion: 1, stepId: 's1', permalink: 'https://slack.test/first' }];
    let reads = 0;
    const port: WaitMessagesPort = {
      posted: async () => undefined,
      links: async () => {
        reads += 1;
        return stored;
      },
    };
    // Only posted() talks to Slack; boards are drawn from the stored links.
    const links = new WaitLinks({} as SlackClient, port);
    const failed = board('paused', step('failed', 'decision'));
    expect((await links.forBoard('run_1', failed)).waitLinks.get('s1')).toBe('https://slack.test/first');
    await links.forBoard('run_1', failed);
    expect(reads).toBe(1);

    // Retried: it runs, nothing waits. Then it fails again, and a peer posts the new escalation.
    await links.forBoard('run_1', board('executing', step('running')));
    stored = [{ kind: 'escalation', planVersion: 1, stepId: 's1', permalink: 'https://slack.test/second' }];
    expect((await links.forBoard('run_1', failed)).waitLinks.get('s1')).toBe('https://slack.test/second');
    expect(reads).toBe(2);
  });
});
