import { stringify } from 'yaml';
import type { Plan } from '../../../agent/model/plan/plan.ts';
import { encodePlanRef } from '../button-values.ts';
import { LIMITS, type Block, type ModalView } from '../limits.ts';
import { context, escapeText, plainText, section, truncate } from '../text.ts';

export const MODIFY_CALLBACK = 'plan-modify-submit';
export const YAML_BLOCK_PREFIX = 'plan-yaml-';
export const YAML_ACTION = 'yaml';
export const INSTRUCTION_BLOCK = 'plan-instruction';
export const INSTRUCTION_ACTION = 'instruction';

const CHUNK = LIMITS.plainTextInput - 100;

/**
 * The plan as YAML a person can edit, plus a free-text field for the planner. A plan longer than one
 * input allows (3000 characters) is split over several inputs at step boundaries (a step longer than one
 * input, between its lines); the submit handler joins them back in order.
 */
export function modifyModal(input: { runId: string; planVersion: number; plan: Plan }): ModalView {
  const chunks = yamlChunks(input.plan);
  const blocks: Block[] = [
    section(
      `Edit the steps of *plan v${input.planVersion}* as YAML, or ask the planner to change it. Your edit becomes a new version; nothing runs until it is approved.`,
    ),
  ];
  if (chunks) {
    chunks.forEach((chunk, index) => {
      blocks.push({
        type: 'input',
        block_id: `${YAML_BLOCK_PREFIX}${index}`,
        optional: true,
        label: plainText(chunks.length === 1 ? 'Plan (YAML)' : `Plan (YAML), part ${index + 1} of ${chunks.length}`, 2000),
        element: { type: 'plain_text_input', action_id: YAML_ACTION, multiline: true, initial_value: chunk, max_length: LIMITS.plainTextInput },
      });
    });
  } else {
    blocks.push(context(':warning: This plan is too large to edit here; ask the planner to change it instead.'));
  }
  blocks.push({
    type: 'input',
    block_id: INSTRUCTION_BLOCK,
    optional: true,
    label: plainText('Or ask the planner to change…', 2000),
    hint: plainText('When this is filled, the planner revises the plan and your YAML edits are ignored.', 2000),
    element: {
      type: 'plain_text_input',
      action_id: INSTRUCTION_ACTION,
      multiline: true,
      max_length: 2000,
      placeholder: plainText('e.g. skip the release, only check CI', 150),
    },
  });
  return {
    type: 'modal',
    callback_id: MODIFY_CALLBACK,
    title: plainText(`Modify plan v${input.planVersion}`, LIMITS.viewTitle),
    submit: plainText('Submit', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    private_metadata: encodePlanRef({ runId: input.runId, planVersion: input.planVersion }),
    blocks,
  };
}

/** A modal shown at once on click (trigger ids expire in 3 s); the plan is filled in by views.update. */
export function loadingModal(planVersion: number): ModalView {
  return {
    type: 'modal',
    callback_id: MODIFY_CALLBACK,
    title: plainText(`Modify plan v${planVersion}`, LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewTitle),
    blocks: [section(':hourglass_flowing_sand: Loading the plan…')],
  };
}

export function errorModal(message: string): ModalView {
  return {
    type: 'modal',
    callback_id: MODIFY_CALLBACK,
    title: plainText('Modify plan', LIMITS.viewTitle),
    close: plainText('Close', LIMITS.viewTitle),
    blocks: [section(`:warning: ${escapeText(truncate(message, 2000))}`)],
  };
}

/**
 * YAML pieces, each under one input's limit, split between steps. A step too long for one input (a long
 * issue body) starts an input of its own and goes on in the next ones, cut between lines: the submit joins
 * the inputs with a newline, which gives back the exact text, a block scalar cut in two included.
 * Undefined when a single line is longer than an input holds, or there would be too many inputs.
 */
export function yamlChunks(plan: Plan): string[] | undefined {
  const pieces = yamlPieces(plan);
  const chunks: string[] = [];
  let current = '';
  const close = () => {
    if (current) chunks.push(current);
    current = '';
  };
  for (const piece of pieces) {
    if (current.length + piece.length <= CHUNK) {
      current += piece;
      continue;
    }
    close();
    if (piece.length <= CHUNK) {
      current = piece;
      continue;
    }
    // Every piece ends with a newline, so its lines (each with its newline) add up to it exactly.
    const lines = piece.match(/[^\n]*\n/g) ?? [];
    if (lines.join('') !== piece) return undefined;
    for (const line of lines) {
      if (line.length > CHUNK) return undefined;
      if (current.length + line.length > CHUNK) close();
      current += line;
    }
    close();
  }
  close();
  if (chunks.length > LIMITS.viewBlocks - 5) return undefined;
  return chunks.map((chunk) => chunk.replace(/\n$/, ''));
}

/** The whole plan as the modal's YAML, in one piece: what its inputs hold, joined. */
export function planYaml(plan: Plan): string {
  return yamlPieces(plan).join('');
}

/** The plan's YAML in the pieces it may be split between: the head, each step, the rollback, questions. Each ends with a newline. */
function yamlPieces(plan: Plan): string[] {
  const pieces = [stringify({ goal: plan.goal, confidence: plan.confidence }) + 'steps:' + (plan.steps.length === 0 ? ' []' : '') + '\n'];
  for (const step of plan.steps) pieces.push(indent(stringify([step])));
  pieces.push('rollback:' + (plan.rollback.length === 0 ? ' []' : '') + '\n');
  for (const step of plan.rollback) pieces.push(indent(stringify([step])));
  if (plan.questions && plan.questions.length > 0) pieces.push(stringify({ questions: plan.questions }));
  // What the plan does not do stays said on the edited version, and a person can change the words.
  if (plan.notCovered && plan.notCovered.length > 0) pieces.push(stringify({ notCovered: plan.notCovered }));
  return pieces;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}
