// Block Kit → HTML for the local workspace page: the block types Tandem's views use, faithfully
// enough to read and click. Unknown blocks show as a labelled placeholder instead of vanishing.
import { escapeHtml, renderMrkdwn, renderPlain } from './mrkdwn.js';

export function renderText(text, users) {
  if (!text || typeof text.text !== 'string') return '';
  return text.type === 'mrkdwn' ? renderMrkdwn(text.text, users) : renderPlain(text.text);
}

// A click names the button (message ts, block id, action id); the workspace finds it in the message the
// bot posted (stored-buttons.ts) and sends its stored value. A new clickable place for a button must be
// taught there too, or its clicks are refused.
function renderButton(button, context) {
  const style = button.style === 'primary' || button.style === 'danger' ? ` ${button.style}` : '';
  const data = [
    ['action-id', button.action_id],
    ['block-id', context.blockId],
    ['value', button.value],
    ['message-ts', context.messageTs],
  ]
    .filter(([, value]) => typeof value === 'string')
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  if (button.url)
    return `<a class="bk-button${style}" href="${escapeHtml(/^https?:/i.test(button.url) ? button.url : '#')}" target="_blank" rel="noopener noreferrer">${renderText(button.text)}</a>`;
  const disabled = context.interactive ? '' : ' disabled';
  return `<button type="button" class="bk-button${style}"${data}${disabled}>${renderText(button.text)}</button>`;
}

// Thumbs as text symbols: colour-emoji glyphs need a font minimal machines lack (see mrkdwn.js).
const FEEDBACK_ICON = { positive: '▲', negative: '▼' };

/**
 * One of Slack's feedback buttons (thumbs up or down under a summary), clickable like a button: the
 * click names the element and which thumb, and the workspace sends the value stored on it.
 * `context.feedbackPressed` is the thumb this person pressed on this message, drawn pressed as Slack does.
 */
function renderFeedbackButton(element, choice, context) {
  const button = element[`${choice}_button`] ?? {};
  const fallback = choice === 'positive' ? 'Good' : 'Bad';
  const data = [
    ['action-id', element.action_id],
    ['block-id', context.blockId],
    ['feedback', choice],
    ['message-ts', context.messageTs],
  ]
    .filter(([, value]) => typeof value === 'string')
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  const pressed = context.feedbackPressed === choice ? ' pressed' : '';
  const label = ` aria-label="${escapeHtml(button.accessibility_label ?? fallback)}" aria-pressed="${pressed ? 'true' : 'false'}"`;
  const disabled = context.interactive ? '' : ' disabled';
  return `<button type="button" class="bk-button bk-feedback${pressed}"${data}${label}${disabled}><span class="bk-feedback-icon" aria-hidden="true">${FEEDBACK_ICON[choice]}</span> ${escapeHtml(button.text?.text ?? fallback)}</button>`;
}

function renderInput(block, context) {
  const element = block.element ?? {};
  const id = escapeHtml(block.block_id ?? '');
  const value = escapeHtml(element.initial_value ?? '');
  const placeholder = element.placeholder ? ` placeholder="${escapeHtml(element.placeholder.text)}"` : '';
  const max = Number.isInteger(element.max_length) ? ` maxlength="${element.max_length}"` : '';
  const field = element.multiline
    ? `<textarea class="bk-input" data-block-id="${id}" rows="${Math.min(18, Math.max(4, (element.initial_value ?? '').split('\n').length + 1))}"${placeholder}${max}>${value}</textarea>`
    : `<input class="bk-input" data-block-id="${id}" value="${value}"${placeholder}${max}>`;
  const optional = block.optional ? ' <span class="bk-optional">(optional)</span>' : '';
  const hint = block.hint ? `<div class="bk-hint">${renderText(block.hint)}</div>` : '';
  const error = context.errors?.[block.block_id] ? `<div class="bk-error" role="alert">${renderPlain(context.errors[block.block_id])}</div>` : '';
  return `<label class="bk-label">${renderText(block.label)}${optional}</label>${field}${hint}${error}`;
}

const TASK_ICON = { pending: '○', in_progress: '◐', complete: '✔', error: '✖' };

// rich_text as task cards carry it: sections of text and links, read as plain text.
function renderRichText(rich) {
  const sections = Array.isArray(rich?.elements) ? rich.elements : [];
  return sections
    .flatMap((section) => (Array.isArray(section?.elements) ? section.elements : []))
    .map((element) =>
      element?.type === 'link' && /^https?:/i.test(String(element.url))
        ? `<a href="${escapeHtml(element.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(element.text ?? element.url)}</a>`
        : escapeHtml(String(element?.text ?? '')),
    )
    .join('');
}

function renderTaskCard(task) {
  const status = Object.hasOwn(TASK_ICON, task?.status) ? task.status : 'pending';
  const details = task.details ? `<div class="bk-task-details">${renderRichText(task.details)}</div>` : '';
  const output = task.output ? `<div class="bk-task-output">${renderRichText(task.output)}</div>` : '';
  const sources = (Array.isArray(task.sources) ? task.sources : [])
    .filter((source) => /^https?:/i.test(String(source?.url)))
    .map((source) => `<a href="${escapeHtml(source.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(source.text ?? source.url)}</a>`)
    .join(' ');
  const links = sources ? `<div class="bk-task-sources">${sources}</div>` : '';
  return `<li class="bk-task bk-task-${status}"><span class="bk-task-icon" title="${status.replace('_', ' ')}">${TASK_ICON[status]}</span><div class="bk-task-body"><div class="bk-task-title">${escapeHtml(String(task.title ?? ''))}</div>${details}${output}${links}</div></li>`;
}

function renderBlock(block, context) {
  const ctx = { ...context, blockId: block.block_id };
  switch (block.type) {
    case 'header':
      return `<div class="bk-header">${renderText(block.text)}</div>`;
    case 'divider':
      return '<hr class="bk-divider">';
    case 'section': {
      const text = block.text ? `<div class="bk-text">${renderText(block.text, context.users)}</div>` : '';
      const fields = Array.isArray(block.fields)
        ? `<div class="bk-fields">${block.fields.map((f) => `<div>${renderText(f, context.users)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory?.type === 'button' ? `<div class="bk-accessory">${renderButton(block.accessory, ctx)}</div>` : '';
      return `<div class="bk-section"><div class="bk-section-body">${text}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="bk-context">${(block.elements ?? []).map((e) => (e.type === 'image' ? '' : `<span>${renderText(e, context.users)}</span>`)).join(' ')}</div>`;
    case 'actions':
      return `<div class="bk-actions">${(block.elements ?? [])
        .filter((e) => e.type === 'button')
        .map((e) => renderButton(e, ctx))
        .join('')}</div>`;
    case 'input':
      return `<div class="bk-input-block">${renderInput(block, context)}</div>`;
    case 'context_actions':
      return `<div class="bk-context-actions">${(Array.isArray(block.elements) ? block.elements : [])
        .filter((e) => e?.type === 'feedback_buttons')
        .map((e) => renderFeedbackButton(e, 'positive', ctx) + renderFeedbackButton(e, 'negative', ctx))
        .join('')}</div>`;
    case 'plan':
      return `<div class="bk-plan"><div class="bk-plan-title">${escapeHtml(String(block.title ?? ''))}</div><ol class="bk-tasks">${(Array.isArray(block.tasks) ? block.tasks : []).map(renderTaskCard).join('')}</ol></div>`;
    default:
      return `<div class="bk-unknown">[${escapeHtml(String(block.type))} block]</div>`;
  }
}

/** context: { users, messageTs, interactive, errors, feedbackPressed } — errors by block id, for modal inputs. */
export function renderBlocks(blocks, context = {}) {
  return (Array.isArray(blocks) ? blocks : []).map((block) => renderBlock(block ?? {}, context)).join('');
}
