/**
 * The plan in full, read-only: every step's exact arguments as they will be sent, forward and rollback.
 * Nothing is cut: a value longer than a section continues in the next ones, and what does not fit
 * one modal goes on in private messages in the thread, said so at the top. Every value is shown as
 * JSON in a code block, escaped, with `verbatim` set: a mention, a link or formatting inside it is
 * shown as the characters it is made of, and trailing spaces or a newline show as what they are.
 */
import { shortDigest } from '../../../agent/model/plan/plan-digest.ts';
import type { Plan } from '../../../agent/model/plan/plan.ts';
import { LIMITS, type Block, type Button, type MessageView, type ModalView } from '../limits.ts';
import { context, escapeText, plainText } from '../text.ts';

export const FULL_PLAN_ACTION = 'plan-view-full';
export const FULL_PLAN_CALLBACK = 'plan-full-view';

/** Characters of a value per section once escaped (`&` takes five); with its label it stays under Slack's 3000. */
const PIECE_CHARS = 2600;
/** Blocks of the modal: Slack's 100, less the notes at the top. */
const MODAL_BLOCKS = LIMITS.viewBlocks - 3;
/** Slack documents no size for a view; the fake refuses over 250k characters, so stay well under. */
const MODAL_CHARS = 180_000;
/** A continuation message: under the 50 blocks and the ~12k characters a message takes. */
const MESSAGE_BLOCKS = LIMITS.messageBlocks - 5;
const MESSAGE_CHARS = LIMITS.messageBlocksChars - 1_000;

export function fullPlanButton(value: string): Button {
  return { type: 'button', text: { type: 'plain_text', text: 'View full plan' }, action_id: FULL_PLAN_ACTION, value };
}

export interface FullPlanInput {
  planVersion: number;
  plan: Plan;
  /** The stored content's digest now (plan-digest.ts). */
  digest: string;
  /** TANDEM_ATTRIBUTION is on: GitHub writes get an attribution line after approval. */
  attribution: boolean;
}

/** The modal to open, and the messages that carry what did not fit in it (none for most plans). */
export interface FullPlanViews {
  modal: ModalView;
  rest: MessageView[];
}

export function fullPlanViews(input: FullPlanInput): FullPlanViews {
  const content = planBlocks(input.plan);
  const first = takePage(content, 0, MODAL_BLOCKS, MODAL_CHARS);
  const pages: Block[][] = [];
  for (let at = first.length; at < content.length;) {
    const page = takePage(content, at, MESSAGE_BLOCKS, MESSAGE_CHARS);
    pages.push(page);
    at += page.length;
  }
  const head = [context(headLine(input))];
  if (pages.length > 0)
    head.push(
      context(
        `:page_facing_up: This plan is longer than one window: this window holds part 1 of ${pages.length + 1}; parts 2–${pages.length + 1} were sent to you privately in the thread. Nothing is left out.`,
      ),
    );
  const modal: ModalView = {
    type: 'modal',
    callback_id: FULL_PLAN_CALLBACK,
    title: plainText(`Plan v${input.planVersion} in full`, LIMITS.viewTitle),
    close: plainText('Close', LIMITS.viewTitle),
    blocks: numbered([...head, ...first]),
  };
  const rest = pages.map((blocks, index) => {
    const label = `Plan v${input.planVersion} in full (digest ${shortDigest(input.digest)}), part ${index + 2} of ${pages.length + 1}`;
    return { text: label, blocks: numbered([context(`:page_facing_up: ${label}`), ...blocks]) };
  });
  return { modal, rest };
}

function headLine(input: FullPlanInput): string {
  const parts = [
    `Plan v${input.planVersion}  ·  digest \`${shortDigest(input.digest)}\``,
    'every argument exactly as it will be sent (as JSON; `{{steps.…}}` references are filled in when their step runs)',
  ];
  if (input.attribution)
    parts.push(
      'after approval Tandem adds an attribution line to each issue, comment and release body it writes, and Requested-by/Approved-by trailers to a merge',
    );
  return parts.join('  ·  ');
}

/** The plan as blocks: the goal, then each step's line and its arguments, then the rollback steps. */
export function planBlocks(plan: Plan): Block[] {
  const blocks: Block[] = [mrkdwnSection(`*Goal:* ${escapeText(plan.goal)}`)];
  const numberOf = new Map(plan.steps.map((step, index) => [step.id, index + 1]));
  plan.steps.forEach((step, index) => {
    const after = step.dependsOn.length > 0 ? `  ·  after ${step.dependsOn.map((id) => numberOf.get(id) ?? escapeText(id)).join(', ')}` : '';
    const expect = step.expect ? `\n_expect:_ ${escapeText(step.expect)}` : '';
    blocks.push(mrkdwnSection(`*${index + 1}. ${escapeText(step.title)}*  ·  \`${escapeText(step.tool)}\`  ·  id \`${escapeText(step.id)}\`${after}${expect}`));
    blocks.push(...argBlocks(step.id, step.args));
  });
  if (plan.rollback.length > 0) blocks.push(mrkdwnSection(`:leftwards_arrow_with_hook: *Rollback (${plan.rollback.length})*, run if the plan is aborted:`));
  for (const step of plan.rollback) {
    const undoes = step.undoes ? `  ·  undoes \`${escapeText(step.undoes)}\`` : '';
    blocks.push(mrkdwnSection(`*${escapeText(step.title)}*  ·  \`${escapeText(step.tool)}\`  ·  id \`${escapeText(step.id)}\`${undoes}`));
    blocks.push(...argBlocks(step.id, step.args));
  }
  return blocks;
}

/** One section per argument, or several when its value is longer than one holds; each labelled with its step and name. */
function argBlocks(stepId: string, args: Record<string, unknown>): Block[] {
  const names = Object.keys(args);
  if (names.length === 0) return [mrkdwnSection('_no arguments_')];
  return names.flatMap((name) => {
    const pieces = splitRaw(valueJson(args[name]), PIECE_CHARS);
    const label = `\`${escapeText(stepId)}\` · *${escapeText(name.replace(/[`*_~]/g, ' '))}*`;
    return pieces.map((piece, index) =>
      mrkdwnSection(`${label}${pieces.length > 1 ? ` (part ${index + 1} of ${pieces.length})` : ''}\n\`\`\`${escapeText(piece)}\`\`\``),
    );
  });
}

/**
 * A value as JSON (objects indented), with every backtick written `\u0060`: the same JSON value, and
 * nothing in it can close the code block it is shown in.
 */
export function valueJson(value: unknown): string {
  const json = (value !== null && typeof value === 'object' ? JSON.stringify(value, null, 2) : JSON.stringify(value)) ?? 'null';
  return json.replace(/`/g, '\\u0060');
}

/** Pieces whose escaped length is at most `max`, each escaped on its own (no entity is split), never splitting a surrogate pair. */
function splitRaw(text: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let size = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    const cost = char === '&' ? 5 : char === '<' || char === '>' ? 4 : 1;
    const code = text.charCodeAt(at);
    const pairStart = code >= 0xd800 && code <= 0xdbff;
    if (size + cost + (pairStart ? 1 : 0) > max && at > start) {
      pieces.push(text.slice(start, at));
      start = at;
      size = 0;
    }
    size += cost;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** A section whose text Slack shows as written: no auto-linked addresses, channel names or mentions. */
function mrkdwnSection(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text, verbatim: true } };
}

/** As many blocks from `from` as fit a page of `maxBlocks` and `maxChars` (at least one, so nothing stalls). */
function takePage(blocks: readonly Block[], from: number, maxBlocks: number, maxChars: number): Block[] {
  const page: Block[] = [];
  let chars = 0;
  for (let at = from; at < blocks.length && page.length < maxBlocks; at++) {
    const size = JSON.stringify(blocks[at]).length + 1;
    if (page.length > 0 && chars + size > maxChars) break;
    page.push(blocks[at]!);
    chars += size;
  }
  return page;
}

/** Block ids in order, so a test (or a reader of the payload) can put a split value back together. */
function numbered(blocks: Block[]): Block[] {
  return blocks.map((block, index) => ({ ...block, block_id: `full-${index}` }));
}
