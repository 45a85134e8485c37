import type { types } from '@slack/bolt';
import { z } from 'zod';

/**
 * Slack's Block Kit limits, as schemas. No official JSON Schema
 * exists, so views are tested against these and the fake Slack server rejects what breaks them.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  contextText: 2000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  id: 255,
  viewTitle: 24,
  privateMetadata: 3000,
  inputLabel: 2000,
  plainTextInput: 3000,
  messageText: 4000,
  /** Seen to fail with msg_blocks_too_long above ~13k; we stay well under. */
  messageBlocksChars: 12_000,
  /** Task cards per plan block: reported by a third party, not by Slack; beyond it we draw sections. */
  planTasks: 50,
  /** Plan and task-card titles: Slack documents no maximum; a header's 150 is the cautious guess. */
  planTitle: 150,
  taskTitle: 150,
  /** Text inside a task card's details or output (no documented maximum; kept short). */
  taskText: 1000,
} as const;

const id = z.string().min(1).max(LIMITS.id);
const plainText = (max: number) => z.object({ type: z.literal('plain_text'), text: z.string().min(1).max(max), emoji: z.boolean().optional() });
const anyText = (max: number) =>
  z.object({ type: z.enum(['plain_text', 'mrkdwn']), text: z.string().min(1).max(max), emoji: z.boolean().optional(), verbatim: z.boolean().optional() });

export const ButtonSchema = z.object({
  type: z.literal('button'),
  text: plainText(LIMITS.buttonText),
  action_id: id,
  value: z.string().max(LIMITS.buttonValue).optional(),
  url: z.string().max(LIMITS.url).optional(),
  style: z.enum(['primary', 'danger']).optional(),
  confirm: z.unknown().optional(),
});

const SectionSchema = z
  .object({
    type: z.literal('section'),
    block_id: id.optional(),
    text: anyText(LIMITS.sectionText).optional(),
    fields: z.array(anyText(LIMITS.sectionFieldText)).max(LIMITS.sectionFields).optional(),
    accessory: ButtonSchema.optional(),
  })
  .refine((s) => s.text !== undefined || (s.fields?.length ?? 0) > 0, 'a section needs text or fields');

const HeaderSchema = z.object({ type: z.literal('header'), block_id: id.optional(), text: plainText(LIMITS.headerText) });
const DividerSchema = z.object({ type: z.literal('divider'), block_id: id.optional() });
const ContextSchema = z.object({
  type: z.literal('context'),
  block_id: id.optional(),
  elements: z.array(anyText(LIMITS.contextText)).min(1).max(LIMITS.contextElements),
});
const ActionsSchema = z.object({ type: z.literal('actions'), block_id: id.optional(), elements: z.array(ButtonSchema).min(1).max(LIMITS.actionsElements) });

const PlainTextInputSchema = z.object({
  type: z.literal('plain_text_input'),
  action_id: id,
  multiline: z.boolean().optional(),
  initial_value: z.string().max(LIMITS.plainTextInput).optional(),
  max_length: z.number().int().max(LIMITS.plainTextInput).optional(),
  placeholder: plainText(150).optional(),
});
/** A person picker (Reassign): Slack answers with the picked user's id as `selected_user`. */
const UsersSelectSchema = z.object({
  type: z.literal('users_select'),
  action_id: id,
  initial_user: z.string().max(LIMITS.id).optional(),
  placeholder: plainText(150).optional(),
});
const InputSchema = z.object({
  type: z.literal('input'),
  block_id: id.optional(),
  label: plainText(LIMITS.inputLabel),
  element: z.union([PlainTextInputSchema, UsersSelectSchema]),
  optional: z.boolean().optional(),
  hint: plainText(LIMITS.inputLabel).optional(),
});

export const BlockSchema = z.union([SectionSchema, HeaderSchema, DividerSchema, ContextSchema, ActionsSchema, InputSchema]);
export type Block = z.infer<typeof BlockSchema>;

/** rich_text as a task card carries it: sections of plain text and links. */
const RichTextSchema = z.object({
  type: z.literal('rich_text'),
  elements: z
    .array(
      z.object({
        type: z.literal('rich_text_section'),
        elements: z
          .array(
            z.union([
              z.object({ type: z.literal('text'), text: z.string().min(1).max(LIMITS.taskText) }),
              z.object({ type: z.literal('link'), url: z.string().max(LIMITS.url), text: z.string().max(LIMITS.taskText).optional() }),
            ]),
          )
          .min(1),
      }),
    )
    .min(1),
});

const TaskCardSchema = z.object({
  type: z.literal('task_card'),
  task_id: id,
  title: z.string().min(1).max(LIMITS.taskTitle),
  status: z.enum(['pending', 'in_progress', 'complete', 'error']),
  details: RichTextSchema.optional(),
  output: RichTextSchema.optional(),
  sources: z.array(z.object({ type: z.literal('url'), url: z.string().min(1).max(LIMITS.url), text: z.string().min(1) })).optional(),
});

const PlanBlockSchema = z.object({
  type: z.literal('plan'),
  block_id: id.optional(),
  title: z.string().min(1).max(LIMITS.planTitle),
  tasks: z
    .array(TaskCardSchema)
    .min(1)
    .max(LIMITS.planTasks)
    .refine((tasks) => new Set(tasks.map((t) => t.task_id)).size === tasks.length, 'task_id values must be unique'),
});

const feedbackButton = z.object({
  text: plainText(LIMITS.buttonText),
  value: z.string().min(1).max(LIMITS.buttonValue),
  accessibility_label: z.string().max(75).optional(),
});
/** Slack's thumbs up/down under a message: a context_actions block of up to five elements. */
const ContextActionsSchema = z.object({
  type: z.literal('context_actions'),
  block_id: id.optional(),
  elements: z
    .array(z.object({ type: z.literal('feedback_buttons'), action_id: id, positive_button: feedbackButton, negative_button: feedbackButton }))
    .min(1)
    .max(5),
});

/** Blocks only messages take (Slack's agent surfaces); modals and the Home tab use BlockSchema. */
const MessageBlockSchema = z.union([BlockSchema, PlanBlockSchema, ContextActionsSchema]);
export type MessageBlock = Block | types.PlanBlock | types.ContextActionsBlock;
export type Button = z.infer<typeof ButtonSchema>;

function uniqueBlockIds(blocks: { block_id?: string }[]): boolean {
  const ids = blocks.map((b) => b.block_id).filter((b): b is string => b !== undefined);
  return new Set(ids).size === ids.length;
}

export const MessageBlocksSchema = z
  .array(MessageBlockSchema)
  .max(LIMITS.messageBlocks)
  .refine(uniqueBlockIds, 'block_id values must be unique')
  .refine((blocks) => JSON.stringify(blocks).length <= LIMITS.messageBlocksChars, `blocks exceed ${LIMITS.messageBlocksChars} characters`);

export const ModalViewSchema = z.object({
  type: z.literal('modal'),
  callback_id: id,
  title: plainText(LIMITS.viewTitle),
  submit: plainText(LIMITS.viewTitle).optional(),
  close: plainText(LIMITS.viewTitle).optional(),
  private_metadata: z.string().max(LIMITS.privateMetadata).optional(),
  blocks: z.array(BlockSchema).max(LIMITS.viewBlocks).refine(uniqueBlockIds, 'block_id values must be unique'),
});
export type ModalView = z.infer<typeof ModalViewSchema>;

export const HomeViewSchema = z.object({
  type: z.literal('home'),
  callback_id: id.optional(),
  private_metadata: z.string().max(LIMITS.privateMetadata).optional(),
  blocks: z.array(BlockSchema).max(LIMITS.viewBlocks),
});
export type HomeView = z.infer<typeof HomeViewSchema>;

/** A message as a view builds it: fallback text for notifications plus blocks. */
export interface MessageView {
  text: string;
  blocks: MessageBlock[];
}

/**
 * Our block types are a strict subset of Slack's; the SDK's own types are wider unions that ours do
 * not line up with structurally, so this is the one place the two meet.
 */
export function asSlackBlocks(blocks: readonly unknown[]): types.KnownBlock[] {
  return blocks as types.KnownBlock[];
}

export function asSlackView<T extends ModalView | HomeView>(view: T): types.View {
  return view as unknown as types.View;
}
