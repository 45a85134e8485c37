/**
 * **Reassign** on a wait for a person (a plan's approval, an escalation, a question, a Confirm): the button, the modal
 * with a user picker, and the line its message carries once handed over ("Waiting on @B — reassigned
 * by @A"). The button names the wait it was drawn for; every value is parsed with zod on the way back.
 */
import { z } from 'zod';
import type { WaitRef } from '../../../agent/ports/run-store.ts';
import { LIMITS, type Block, type Button, type MessageBlock, type MessageView, type ModalView } from '../limits.ts';
import { context, mention, plainText, section } from '../text.ts';

export const REASSIGN_ACTION = 'wait-reassign';
export const REASSIGN_CALLBACK = 'wait-reassign-modal';
export const REASSIGN_BLOCK = 'reassign-to';
export const REASSIGN_INPUT = 'reassign-user';
/** The line on a handed-over wait's message; replaced, never repeated, when it is handed on again. */
export const ADDRESSEE_BLOCK = 'wait-addressee';

const id = z.string().min(1).max(255);
const WaitRefSchema = z.discriminatedUnion('w', [
  z.strictObject({ w: z.literal('a'), r: id, v: z.number().int().positive() }),
  z.strictObject({ w: z.literal('e'), e: id }),
  z.strictObject({ w: z.literal('q'), r: id, k: z.string().regex(/^q_[0-9A-Za-z_-]{1,64}$/) }),
  z.strictObject({ w: z.literal('c'), r: id, v: z.number().int().positive(), s: id }),
]);
/** The modal carries the wait and where its message is (to mark it once handed over). */
const ModalMetadataSchema = z.strictObject({ ref: WaitRefSchema, c: z.string().min(1).max(64), t: z.string().regex(/^\d+\.\d+$/) });

type Encoded = z.infer<typeof WaitRefSchema>;

function encode(ref: WaitRef): Encoded {
  if (ref.kind === 'approval') return { w: 'a', r: ref.runId, v: ref.planVersion };
  if (ref.kind === 'escalation') return { w: 'e', e: ref.escalationId };
  if (ref.kind === 'question') return { w: 'q', r: ref.runId, k: ref.questionId };
  return { w: 'c', r: ref.runId, v: ref.planVersion, s: ref.stepId };
}

function decode(value: Encoded): WaitRef {
  if (value.w === 'a') return { kind: 'approval', runId: value.r, planVersion: value.v };
  if (value.w === 'e') return { kind: 'escalation', escalationId: value.e };
  if (value.w === 'q') return { kind: 'question', runId: value.r, questionId: value.k };
  return { kind: 'confirm', runId: value.r, planVersion: value.v, stepId: value.s };
}

function parsed<T>(schema: z.ZodType<T>, value: string | undefined): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(value ?? ''));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

export function reassignButton(ref: WaitRef): Button {
  return { type: 'button', text: { type: 'plain_text', text: 'Reassign' }, action_id: REASSIGN_ACTION, value: JSON.stringify(encode(ref)) };
}

export function decodeReassignButton(value: string | undefined): WaitRef | undefined {
  const ref = parsed(WaitRefSchema, value);
  return ref && decode(ref);
}

export interface ReassignTarget {
  ref: WaitRef;
  /** The wait's message: its channel and ts. */
  channel: string;
  ts: string;
}

export function decodeReassignModal(value: string | undefined): ReassignTarget | undefined {
  const meta = parsed(ModalMetadataSchema, value);
  return meta && { ref: decode(meta.ref), channel: meta.c, ts: meta.t };
}

/** The Reassign modal: one user picker; the wait and its message ride along in the metadata. */
export function reassignModal(target: ReassignTarget): ModalView {
  return {
    type: 'modal',
    callback_id: REASSIGN_CALLBACK,
    title: plainText('Reassign', LIMITS.viewTitle),
    submit: plainText('Hand it over', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    private_metadata: JSON.stringify({ ref: encode(target.ref), c: target.channel, t: target.ts }),
    blocks: [
      section('Hand this to someone else: they are pinged in the thread, and the reminder goes to them. Only someone who may answer it can take it.'),
      {
        type: 'input',
        block_id: REASSIGN_BLOCK,
        label: plainText('Who should answer it', LIMITS.inputLabel),
        element: { type: 'users_select', action_id: REASSIGN_INPUT, placeholder: plainText('Pick a person', 150) },
      },
    ],
  };
}

/** "Waiting on @B — reassigned by @A". */
export function addresseeLine(to: string, by: string): Block {
  return { ...context(`:arrow_right: Waiting on ${mention(to)} — reassigned by ${mention(by)}`), block_id: ADDRESSEE_BLOCK };
}

/**
 * The wait's message with its addressee line: it replaces the line of an earlier hand-over, or goes
 * just above the buttons (at the end when there are none).
 */
export function withAddressee(blocks: readonly MessageBlock[], to: string, by: string): MessageBlock[] {
  const line = addresseeLine(to, by);
  const kept = blocks.filter((block) => (block as { block_id?: string }).block_id !== ADDRESSEE_BLOCK);
  const actions = kept.findIndex((block) => block.type === 'actions');
  return actions === -1 ? [...kept, line] : [...kept.slice(0, actions), line, ...kept.slice(actions)];
}

/**
 * A wait's message posted again (a reminder) after a hand-over: it says whom it waits on, as the first
 * post does once marked. Only a message with buttons gets the line; without an addressee it is as drawn.
 */
export function addressed(view: MessageView, addressee: { to: string; by: string } | undefined): MessageView {
  if (!addressee || !view.blocks.some((block) => block.type === 'actions')) return view;
  return { ...view, blocks: withAddressee(view.blocks, addressee.to, addressee.by) };
}
