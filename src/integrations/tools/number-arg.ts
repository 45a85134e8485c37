import { z } from 'zod';

export interface NumberArgBounds {
  min: number;
  max: number;
  /** Whole numbers only (default); `wait.seconds` also takes a fraction written as a number. */
  integer?: boolean;
  /** Accept a leading `#` in text, as people write issue and pull numbers ("#666"). */
  hash?: boolean;
}

/**
 * A numeric tool arg. A plan may fill it from an earlier step's output as a whole-value reference, which
 * keeps the output's type (CONTRACT §3): a number passes as it is, and text passes only when it is one
 * number written plainly (digits, surrounding spaces) — a person's answer "30" to `ask_human`. Anything
 * else is refused rather than read as some number: blind coercion turns "1e3" into 1000, "0x1e" into 30,
 * and "" or true into a number too. The bounds apply to either form, and both show in the JSON Schema a
 * model is given.
 */
export function numberArg({ min, max, integer = true, hash = false }: NumberArgBounds) {
  const range = max < Number.MAX_SAFE_INTEGER ? `from ${min} to ${max}` : `such as ${Math.max(min, 42)}`;
  const message = `expected a number ${range} (digits only)`;
  const bounded = (integer ? z.number().int() : z.number()).min(min).max(max);
  const digits = hash ? /^\s*#?\d{1,15}\s*$/ : /^\s*\d{1,15}\s*$/;
  const text = z
    .string()
    .regex(digits, message)
    .transform((value) => Number(value.replace(/[\s#]/g, '')));
  return z.union([bounded, text], { error: message }).pipe(bounded);
}
