import { z } from 'zod';
import { defineTool } from '../define-tool.ts';

/** Pauses the run; the executor turns the person's reply into `{ answer, answeredBy }`. */
/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ answer: z.string(), answeredBy: z.string() });

export function createAskHumanTool() {
  return defineTool({
    name: 'ask_human',
    description:
      "Ask the people in the run's thread a question and wait for the answer (a choice, a value, a confirmation). Later steps can use {{steps.<id>.output.answer}}.",
    risk: 'read',
    output: Output,
    targets: [],
    outputFrom: 'person',
    input: z.object({ question: z.string().min(1).max(2_000) }),
    run: async (args) => ({ status: 'pause', question: args.question }),
  });
}
