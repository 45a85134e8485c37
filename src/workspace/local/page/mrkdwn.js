// Slack mrkdwn → HTML for the local workspace page. Every piece of text is HTML-escaped before any
// tag is added; tags are only ever built here from fixed strings.

// Emoji as text symbols with a colour, not colour-emoji glyphs: those need an emoji font, which
// minimal Linux machines (and CI, where the README screenshot is taken) do not have.
const EMOJI = {
  white_check_mark: ['✔', 'green'],
  heavy_check_mark: ['✔', 'green'],
  x: ['✘', 'red'],
  no_good: ['✘', 'red'],
  white_circle: ['○', 'grey'],
  arrows_counterclockwise: ['⟳', 'blue'],
  hourglass_flowing_sand: ['◷', 'amber'],
  hourglass: ['◷', 'grey'],
  stopwatch: ['◷', 'grey'],
  fast_forward: ['»', 'grey'],
  no_entry_sign: ['⊘', 'red'],
  octagonal_sign: ['⊘', 'red'],
  grey_question: ['?', 'grey'],
  question: ['?', 'amber'],
  warning: ['⚠', 'amber'],
  zap: ['⚡', 'amber'],
  leftwards_arrow_with_hook: ['↩', 'grey'],
  double_vertical_bar: ['‖', 'amber'],
  mag: ['⌕', 'blue'],
  pencil2: ['✏', 'amber'],
  memo: ['✎', 'grey'],
  raised_hand: ['⚑', 'amber'],
  rotating_light: ['⚑', 'red'],
  thought_balloon: ['…', 'grey'],
  tada: ['✶', 'amber'],
  rocket: ['➚', 'blue'],
  eyes: ['◉', 'grey'],
  information_source: ['ℹ', 'blue'],
  robot_face: ['⚙', 'grey'],
  clipboard: ['▤', 'grey'],
  star: ['★', 'amber'],
  alarm_clock: ['◷', 'blue'],
  ballot_box_with_check: ['☑', 'grey'],
  books: ['▤', 'grey'],
  bust_in_silhouette: ['☺', 'grey'],
  calendar: ['▦', 'grey'],
  page_facing_up: ['▤', 'grey'],
  thinking_face: ['?', 'grey'],
  wastebasket: ['✘', 'grey'],
};

export function escapeHtml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Slack escapes only these three in message text; undo that before escaping for HTML. */
function unescapeSlack(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function emojify(html) {
  return html.replace(/:([a-z0-9_+-]+):/g, (match, name) => {
    const emoji = EMOJI[name];
    return emoji ? `<span class="emoji e-${emoji[1]}" title="${name}">${emoji[0]}</span>` : match;
  });
}

/** plain_text objects: escaped, with emoji shortcodes shown. */
export function renderPlain(text) {
  return emojify(escapeHtml(text)).replace(/\n/g, '<br>');
}

function safeUrl(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : null;
}

/** `<…>` tokens: user and group mentions, channels, special mentions and links. */
function renderToken(body, users) {
  const [target, label] = splitOnce(body, '|');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `<span class="mention">@${escapeHtml(users[id] ?? label ?? id)}</span>`;
  }
  if (target.startsWith('!subteam^')) return `<span class="mention">@${escapeHtml(label ?? target.slice('!subteam^'.length))}</span>`;
  if (target.startsWith('!')) return `<span class="mention">@${escapeHtml(label ?? target.slice(1))}</span>`;
  if (target.startsWith('#')) return `<span class="mention">#${escapeHtml(label ?? target.slice(1))}</span>`;
  const url = safeUrl(unescapeSlack(target));
  const text = emojify(escapeHtml(unescapeSlack(label ?? target)));
  return url ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${text}</a>` : text;
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Renders mrkdwn: <links|and> <@mentions>, *bold*, _italic_, ~strike~, `code`, ```blocks```,
 * :emoji: and line breaks. `users` maps user ids to names.
 */
export function renderMrkdwn(text, users = {}) {
  const held = [];
  const hold = (html) => `\uE000${held.push(html) - 1}\uE001`;
  let html = String(text).replace(/<([^<>\n]+)>/g, (_match, body) => hold(renderToken(body, users)));
  html = escapeHtml(unescapeSlack(html));
  html = html.replace(/```([\s\S]+?)```/g, (_match, code) => hold(`<pre>${code.replace(/^\n/, '')}</pre>`));
  html = html.replace(/`([^`\n]+)`/g, (_match, code) => hold(`<code>${code}</code>`));
  const edge = '(^|[\\s(\\[{>\uE001])';
  const end = '(?=$|[\\s.,;:!?)\\]}<\uE000])';
  html = html.replace(new RegExp(`${edge}\\*([^*\\n]+?)\\*${end}`, 'g'), '$1<strong>$2</strong>');
  html = html.replace(new RegExp(`${edge}_([^_\\n]+?)_${end}`, 'g'), '$1<em>$2</em>');
  html = html.replace(new RegExp(`${edge}~([^~\\n]+?)~${end}`, 'g'), '$1<del>$2</del>');
  html = emojify(html).replace(/\n/g, '<br>');
  // Held pieces may hold others (a mention inside code), so restore until none is left.
  for (let guard = 0; guard < 5 && html.includes('\uE000'); guard += 1) {
    html = html.replace(/\uE000(\d+)\uE001/g, (_match, index) => held[Number(index)] ?? '');
  }
  return html;
}
