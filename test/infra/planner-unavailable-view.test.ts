import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockSchema } from '../../src/bot/views/limits.ts';
import { decodeTryAgain, plannerUnavailableMessage, PLANNER_TRY_AGAIN_ACTION } from '../../src/bot/views/run/planner-unavailable.ts';

describe('the planner-unavailable message', () => {
  it('fits Slack with any reason, shows it escaped, and its Try again carries the run', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000 }), (reason) => {
        const view = plannerUnavailableMessage({ runId: 'run_1', reason });
        for (const block of view.blocks) expect(BlockSchema.safeParse(block).success).toBe(true);
        expect(view.text).not.toMatch(/<!channel>|<!here>/);
        const button = JSON.stringify(view.blocks).includes(PLANNER_TRY_AGAIN_ACTION);
        expect(button).toBe(true);
      }),
      { numRuns: 200 },
    );
    const view = plannerUnavailableMessage({ runId: 'run_1', reason: 'OpenAI failed with 503 <!channel>' });
    const actions = view.blocks[1] as { elements: { value: string }[] };
    expect(decodeTryAgain(actions.elements[0]!.value)).toBe('run_1');
    expect(view.text).toContain('&lt;!channel&gt;');
  });

  it('reads no run from a value it did not make', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (value) => {
        const runId = decodeTryAgain(value);
        return runId === undefined || (typeof runId === 'string' && runId.length > 0);
      }),
    );
    for (const value of [undefined, '', 'null', '{"r":""}', '{"r":5}', '[]']) expect(decodeTryAgain(value)).toBeUndefined();
  });
});
