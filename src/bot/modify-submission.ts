import { parse, YAMLParseError } from 'yaml';
import type { Result } from '../agent/model/errors.ts';
import type { Text } from '../agent/text/text.ts';
import { plainWords } from './views/text.ts';
import { decodePlanRef, type PlanRef } from './views/button-values.ts';
import { INSTRUCTION_ACTION, INSTRUCTION_BLOCK, YAML_ACTION, YAML_BLOCK_PREFIX } from './views/plan/modify-modal.ts';

type StateValues = Record<string, Record<string, { value?: string | null } | undefined>>;

export interface ModifySubmission {
  ref: PlanRef;
  instruction: string;
  /** The YAML inputs in order, with their block ids, so an error lands on the input that holds it. */
  parts: { blockId: string; text: string }[];
}

/** Reads the Modify modal's state; undefined when the private_metadata is not ours (a forged or stale view). */
export function readModifySubmission(view: { private_metadata?: string; state?: { values?: StateValues } }): ModifySubmission | undefined {
  const ref = decodePlanRef(view.private_metadata);
  if (!ref) return undefined;
  const values = view.state?.values ?? {};
  const parts = Object.keys(values)
    .filter((blockId) => blockId.startsWith(YAML_BLOCK_PREFIX))
    .sort((a, b) => Number(a.slice(YAML_BLOCK_PREFIX.length)) - Number(b.slice(YAML_BLOCK_PREFIX.length)))
    .map((blockId) => ({ blockId, text: values[blockId]?.[YAML_ACTION]?.value ?? '' }));
  const instruction = (values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value ?? '').trim();
  return { ref, instruction, parts };
}

/** Field errors keyed by block id, as `response_action: 'errors'` wants them. */
export type FieldErrors = Record<string, string>;

/**
 * Aliases can multiply a few lines into millions of nodes; a plan never needs many. Warnings (an
 * unknown tag) are not printed to our stdout: the plan check reports what is wrong with the value.
 */
const YAML_OPTIONS = { maxAliasCount: 20, logLevel: 'error', uniqueKeys: true } as const;

/** Joins the YAML parts and parses them; a syntax error is reported on the part that holds the bad line. */
export function parsePlanYaml(parts: ModifySubmission['parts']): Result<unknown, FieldErrors> {
  const first = parts[0]?.blockId;
  if (!first) return { ok: false, error: {} };
  const text = parts.map((part) => part.text).join('\n');
  if (!text.trim()) return { ok: false, error: { [first]: 'The plan is empty. Put the steps back, or write what to change in the field below.' } };
  try {
    const value: unknown = parse(text, YAML_OPTIONS);
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      return { ok: false, error: { [first]: 'Expected a YAML mapping with goal, confidence, steps and rollback.' } };
    }
    return { ok: true, value };
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const line = error.linePos?.[0]?.line ?? 1;
      return { ok: false, error: { [partAtLine(parts, line)]: `Invalid YAML: ${firstLine(error.message)}` } };
    }
    // yaml throws other errors for documents it refuses to build (an alias bomb is a ReferenceError):
    // the person still gets a field error, and the modal keeps their text.
    return {
      ok: false,
      error: { [first]: `This YAML cannot be used: ${firstLine((error as Error).message ?? String(error))}. Write the steps out without aliases (*name).` },
    };
  }
}

function partAtLine(parts: ModifySubmission['parts'], line: number): string {
  let start = 1;
  for (const part of parts) {
    const lines = part.text.split('\n').length;
    if (line < start + lines) return part.blockId;
    start += lines;
  }
  return parts[parts.length - 1]!.blockId;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 300);
}

/** Plan problems from the agent, shown on the first YAML input (Slack shows one message per field). */
export function planErrors(parts: ModifySubmission['parts'], problems: readonly Text[]): FieldErrors {
  const first = parts[0]?.blockId ?? INSTRUCTION_BLOCK;
  const text = problems.slice(0, 5).map(plainWords).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
  return { [first]: text.slice(0, 1000) || 'The plan is not valid.' };
}
