// The local workspace page: draws GET /local/state, re-reads it on every Server-Sent Event, and turns
// typing and clicks into the browser API's POSTs. Text reaches the DOM only through the escaping
// renderers in mrkdwn.js / blocks.js or through textContent.
/* global document, fetch, Element, HTMLFormElement, EventSource, URLSearchParams, history, location */
import { renderBlocks } from './blocks.js';
import { demoBadge, drawDemo, wireDemo } from './demo.js';
import { drawModal, showFieldErrors } from './modal.js';
import { escapeHtml, renderMrkdwn } from './mrkdwn.js';

const $ = (id) => document.getElementById(id);
let state = null;
/** Which conversation is shown: 'channel' (#general) or 'dm' (the direct message with the bot). */
let conversation = 'channel';
let openThread = null;
/** The thumb this person pressed per message ts: Slack draws a pressed feedback button itself. */
const feedbackPressed = new Map();
let refreshing = null;
let refreshAgain = false;
/** The last browser action's refusal; shown until the next action works. */
let pageError = null;

function compareTs(a, b) {
  const [as, ac] = a.split('.').map(Number);
  const [bs, bc] = b.split('.').map(Number);
  return as - bs || ac - bc;
}

function timeOf(ts) {
  return new Date(Number(ts.split('.')[0]) * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function messageHtml(message, options) {
  const users = state.users;
  const body =
    message.blocks && message.blocks.length > 0
      ? renderBlocks(message.blocks, {
          users,
          messageTs: message.ephemeral ? undefined : message.ts,
          interactive: !message.ephemeral,
          feedbackPressed: feedbackPressed.get(message.ts),
        })
      : renderMrkdwn(message.text, users);
  const name = message.ephemeral ? state.bot.name : message.userName;
  const bot = message.ephemeral || message.isBot;
  const replies =
    options.showReplies && message.replies?.length
      ? `<button type="button" class="replies" data-thread="${escapeHtml(message.ts)}">${message.replies.length} ${message.replies.length === 1 ? 'reply' : 'replies'}</button>`
      : '';
  return `<article class="msg${bot ? ' bot' : ''}${message.ephemeral ? ' ephemeral' : ''}" data-ts="${escapeHtml(message.ts)}">
    <div class="avatar">${escapeHtml(name.slice(0, 1).toUpperCase())}</div>
    <div class="msg-main">
      <div class="msg-head"><span class="name">${escapeHtml(name)}</span>${bot ? `<span class="badge">APP</span>${demoBadge(state)}` : ''}<time>${timeOf(message.ts)}</time>${message.edited ? '<span class="edited">(edited)</span>' : ''}</div>
      <div class="msg-body">${body}</div>
      ${message.ephemeral ? '<div class="only-you"><span class="emoji e-grey">◉</span> Only visible to you</div>' : ''}
      ${replies}
    </div>
  </article>`;
}

function drawList(container, items, options) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  container.innerHTML = items.length ? items.map((m) => messageHtml(m, options)).join('') : `<div class="empty">${escapeHtml(options.empty)}</div>`;
  if (atBottom || options.forceBottom) container.scrollTop = container.scrollHeight;
}

const conversationLabel = (channel) => (channel === state.dm.id ? state.dm.name : `# ${state.channel.name}`);

function drawChannel() {
  const id = state[conversation].id;
  const top = state.ephemerals.filter((e) => e.channel === id && !e.threadTs).map((e) => ({ ...e, ephemeral: true }));
  const items = [...state.messages.filter((m) => m.channel === id), ...top].sort((a, b) => compareTs(a.ts, b.ts));
  const empty =
    conversation === 'dm'
      ? "Your direct messages with tandem. Write a task here: it plans in your message's thread, as in a channel."
      : 'No messages yet. Mention @tandem with a task to start.';
  drawList($('messages'), items, { showReplies: true, empty });
  $('conversation-name').textContent = conversationLabel(id);
  $('composer-input').placeholder = conversation === 'dm' ? `Message ${state.dm.name}` : `Message #${state.channel.name}`;
  for (const link of document.querySelectorAll('[data-conversation]')) link.classList.toggle('active', link.dataset.conversation === conversation);
}

function drawThread() {
  const parent = openThread && state.messages.find((m) => m.ts === openThread);
  $('thread').hidden = !parent;
  if (!parent) return;
  const mine = state.ephemerals.filter((e) => e.channel === parent.channel && e.threadTs === parent.ts).map((e) => ({ ...e, ephemeral: true }));
  const items = [parent, ...[...parent.replies, ...mine].sort((a, b) => compareTs(a.ts, b.ts))];
  drawList($('thread-messages'), items, { showReplies: false, empty: '' });
  $('thread-channel').textContent = conversationLabel(parent.channel);
  drawSurfaces(parent.surfaces);
}

/** Slack's agent surfaces on the open thread: "tandem is planning…" under it, the session and its Stop above. */
function drawSurfaces(surfaces) {
  const status = $('thread-status');
  status.hidden = !surfaces.status;
  status.textContent = surfaces.status ? `${state.bot.name} ${surfaces.status}` : '';
  const session = $('session');
  session.hidden = !surfaces.session;
  session.textContent = surfaces.session ? `Agent session: ${surfaces.session}` : '';
  $('session-stop').hidden = surfaces.session !== 'processing';
}

function drawBanner() {
  const connection = $('connection');
  connection.textContent = state.connected ? 'Tandem connected' : 'Tandem not connected';
  connection.className = `connection ${state.connected ? 'up' : 'down'}`;
  const error = pageError ?? state.notice;
  showBanner(error ?? (state.connected ? null : 'Tandem is not connected to this workspace yet. It connects as soon as the bot has started.'), Boolean(error));
}

function showBanner(text, isError) {
  const banner = $('banner');
  banner.hidden = !text;
  banner.textContent = text ?? '';
  banner.className = `banner${isError ? ' error' : ''}`;
}

function draw() {
  drawBanner();
  drawChannel();
  drawThread();
  drawModal($('modal'), state);
  drawDemo(state);
  $('hint').textContent = `@tandem check health of ${state.healthUrl ?? '…'}`;
}

async function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      const response = await fetch('/local/state', { cache: 'no-store' });
      state = await response.json();
      draw();
    } while (refreshAgain);
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function post(path, body) {
  try {
    const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
    pageError = answer.ok ? null : answer.error;
    if (state) drawBanner();
    return answer;
  } catch (error) {
    pageError = `The local workspace is not answering (${error.message}). Is Tandem still running?`;
    showBanner(pageError, true);
    return { ok: false };
  }
}

/** `where()` says where the text goes: the conversation and, for a thread's composer, the thread. */
function wireComposer(formId, inputId, where) {
  const form = $(formId);
  const input = $(inputId);
  const send = async () => {
    const text = input.value.trim();
    if (!text) return;
    input.disabled = true;
    const { channel, threadTs } = where();
    const answer = await post('/local/messages', { text, channel, ...(threadTs ? { threadTs } : {}) });
    input.disabled = false;
    input.focus();
    if (!answer.ok) return;
    input.value = '';
    // A new task's plan arrives in the thread of the mention (or of any DM): open it, as a person would.
    if (!threadTs && answer.ts && (channel === state.dm.id || /@tandem\b/i.test(text))) openThread = answer.ts;
    await refresh();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void send();
    }
  });
}

document.addEventListener('click', async (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const switcher = target?.closest('[data-conversation]');
  if (switcher) {
    conversation = switcher.dataset.conversation;
    openThread = null;
    draw();
    return;
  }
  const thread = target?.closest('[data-thread]');
  if (thread) {
    openThread = thread.dataset.thread;
    drawThread();
    return;
  }
  const button = target?.closest('button.bk-button[data-action-id]');
  if (button && button.dataset.messageTs) {
    button.disabled = true;
    // The workspace sends the bot the value it stored on the message; the page only names the button.
    const { actionId, blockId, messageTs, feedback } = button.dataset;
    const answer = await post('/local/actions', { messageTs, actionId, ...(blockId ? { blockId } : {}), ...(feedback ? { feedback } : {}) });
    button.disabled = false;
    if (answer.ok && feedback) {
      feedbackPressed.set(messageTs, feedback);
      await refresh();
    }
    return;
  }
  if (target?.closest('#session-stop')) {
    const parent = state.messages.find((m) => m.ts === openThread);
    if (parent) await post('/local/sessions/stop', { channel: parent.channel, threadTs: parent.ts });
    return;
  }
  const close = target?.closest('#modal [data-close]');
  if (close) {
    const viewId = close.closest('form').dataset.viewId;
    await post('/local/views/close', { viewId });
    await refresh();
  }
});

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.viewId) return;
  event.preventDefault();
  const values = {};
  for (const field of form.querySelectorAll('[data-block-id]')) values[field.dataset.blockId] = field.value;
  const submit = form.querySelector('[type=submit]');
  if (submit) submit.disabled = true;
  const answer = await post('/local/views/submit', { viewId: form.dataset.viewId, values });
  if (submit) submit.disabled = false;
  if (answer.ok && !answer.closed) showFieldErrors(answer.errors);
  await refresh();
});

$('thread-close').addEventListener('click', () => {
  openThread = null;
  drawThread();
});
$('hint').addEventListener('click', () => {
  $('composer-input').value = $('hint').textContent;
  $('composer-input').focus();
});
wireDemo({ post, refresh, getState: () => state });
wireComposer('composer', 'composer-input', () => ({ channel: state[conversation].id, threadTs: null }));
wireComposer('thread-composer', 'thread-input', () => ({
  channel: state.messages.find((m) => m.ts === openThread)?.channel ?? state.channel.id,
  threadTs: openThread,
}));

// The key in the printed address is now in an HttpOnly cookie: take it out of the address bar and history.
if (new URLSearchParams(location.search).has('k')) history.replaceState(null, '', location.pathname);

const events = new EventSource('/local/events');
events.addEventListener('change', () => void refresh());
events.addEventListener('error', () => showBanner('Lost contact with the local workspace; retrying…', true));
events.addEventListener('open', () => void refresh());
