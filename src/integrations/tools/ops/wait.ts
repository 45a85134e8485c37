import { z } from 'zod';
import { defineTool } from '../define-tool.ts';
import { sleep } from './sleep.ts';
import { numberArg } from '../number-arg.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ waitedS: z.number() });

export function createWaitTool() {
  return defineTool({
    name: 'wait',
    description: 'Pause this branch of the plan for some seconds, e.g. to let a deploy settle before a health check.',
    risk: 'read',
    output: Output,
    targets: [],
    input: z.object({ seconds: numberArg({ min: 0, max: 3_600, integer: false }).describe('Seconds to wait (max 3600)') }),
    run: async (args, ctx) => {
      try {
        await sleep(args.seconds * 1000, ctx.signal);
        return { status: 'ok', output: { waitedS: args.seconds } };
      } catch {
        return { status: 'error', error: { message: 'cancelled while waiting', code: 'cancelled' } };
      }
    },
  });
}
