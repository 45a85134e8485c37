import { z } from 'zod';

const MESSAGE = 'expected true or false';

/**
 * A yes/no tool arg. Filled from an earlier step's output as a whole-value reference it may arrive as
 * text (a person's answer to `ask_human` is text, CONTRACT §4): "true" and "false", in any case and with
 * surrounding spaces, are read as the flag; any other text ("yes", "1", "") is refused, not guessed at.
 */
export const BooleanArg = z
  .union(
    [
      z.boolean(),
      z
        .string()
        .regex(/^\s*(true|false)\s*$/i, MESSAGE)
        .transform((value) => value.trim().toLowerCase() === 'true'),
    ],
    { error: MESSAGE },
  )
  .pipe(z.boolean());
