// The modal the bot opened (views.open / views.update), drawn over the page. Redrawn only when the
// bot changes it, so what the person typed survives the page's refreshes; the bot's field errors
// are marked in place.
/* global document */
import { renderBlocks, renderText } from './blocks.js';
import { escapeHtml } from './mrkdwn.js';

/** The modal on screen (`id:hash`), so a refresh that did not change it leaves the form alone. */
let shownModalKey = null;

/** root: the page's #modal element; state: GET /local/state. */
export function drawModal(root, state) {
  const modal = state.modal;
  const key = modal ? `${modal.id}:${modal.hash}` : null;
  if (key === shownModalKey) {
    if (modal) showFieldErrors(modal.errors);
    return;
  }
  shownModalKey = key;
  root.hidden = !modal;
  if (!modal) {
    root.innerHTML = '';
    return;
  }
  const view = modal.view;
  const submit = view.submit ? `<button type="submit" class="bk-button primary" data-testid="modal-submit">${renderText(view.submit)}</button>` : '';
  root.innerHTML = `<form class="modal" role="dialog" aria-modal="true" data-view-id="${escapeHtml(modal.id)}">
    <div class="modal-header"><h2>${renderText(view.title)}</h2><button type="button" class="icon-button" data-close aria-label="Close">×</button></div>
    <div class="modal-body">${renderBlocks(view.blocks, { users: state.users, interactive: false, errors: modal.errors })}</div>
    <div class="modal-footer"><button type="button" class="bk-button" data-close>${view.close ? renderText(view.close) : 'Cancel'}</button>${submit}</div>
  </form>`;
  showFieldErrors(modal.errors);
}

/** Marks fields with the bot's errors in place, so what the person typed stays. */
export function showFieldErrors(errors) {
  for (const block of document.querySelectorAll('#modal .bk-input-block')) {
    const field = block.querySelector('[data-block-id]');
    const message = errors?.[field?.dataset.blockId];
    let box = block.querySelector('.bk-error');
    block.classList.toggle('has-error', Boolean(message));
    if (!message) {
      box?.remove();
      continue;
    }
    if (!box) {
      box = document.createElement('div');
      box.className = 'bk-error';
      box.setAttribute('role', 'alert');
      block.append(box);
    }
    box.textContent = message;
  }
}
