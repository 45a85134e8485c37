// The demo's parts of the page: the DEMO banner and marks, who the page acts as (the person switch), and
// the guided tasks as suggestions. Drawn from GET /local/state like the rest; absent outside the demo
// (state.demo is null and there is one person). Text reaches the DOM only through textContent.
/* global document, Element */

const $ = (id) => document.getElementById(id);

/** The mark beside APP on each of the bot's messages in the demo. */
export const demoBadge = (state) => (state.demo ? '<span class="badge demo-badge">DEMO</span>' : '');

export function drawDemo(state) {
  const demo = state.demo;
  document.body.classList.toggle('demo', Boolean(demo));
  const tag = document.querySelector('.local-tag');
  if (tag) tag.textContent = demo ? 'demo' : 'local';
  if (demo) document.title = `#${state.channel.name} · Tandem (demo)`;
  const banner = $('demo-banner');
  banner.hidden = !demo;
  banner.textContent = demo ? demo.banner : '';
  drawPeople(state);
  drawSuggestions(demo);
  const hint = document.querySelector('.composer-hint');
  if (hint) hint.hidden = Boolean(demo);
}

function drawPeople(state) {
  const box = $('people');
  box.hidden = state.people.length < 2;
  if (box.hidden) return;
  const buttons = state.people.map((person) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `channel-link person${person.id === state.me.id ? ' active' : ''}`;
    button.dataset.person = person.id;
    button.dataset.testid = `person-${person.name}`;
    button.setAttribute('aria-pressed', String(person.id === state.me.id));
    button.textContent = person.title;
    return button;
  });
  const heading = document.createElement('div');
  heading.className = 'sidebar-section';
  heading.textContent = 'Acting as (demo people)';
  box.replaceChildren(heading, ...buttons);
}

let drawnSuggestions = null;
function drawSuggestions(demo) {
  const box = $('suggestions');
  box.hidden = !demo;
  if (!demo || drawnSuggestions === demo.suggestions.length) return;
  drawnSuggestions = demo.suggestions.length;
  const label = document.createElement('span');
  label.className = 'suggestions-label';
  label.textContent = 'Try:';
  const chips = demo.suggestions.map((suggestion, index) => {
    const chip = document.createElement('button');
    chip.type = 'button';
    chip.className = 'suggestion';
    chip.dataset.suggestion = String(index);
    chip.title = suggestion.hint;
    chip.textContent = suggestion.label;
    return chip;
  });
  box.replaceChildren(label, ...chips);
}

/** `post` and `refresh` are the page's own (app.js); a chip fills the composer, the person presses Enter. */
export function wireDemo({ post, refresh, getState }) {
  document.addEventListener('click', async (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const person = target?.closest('[data-person]');
    if (person) {
      const answer = await post('/local/people/current', { id: person.dataset.person });
      if (answer.ok) await refresh();
      return;
    }
    const chip = target?.closest('[data-suggestion]');
    const suggestion = chip && getState()?.demo?.suggestions[Number(chip.dataset.suggestion)];
    if (suggestion) {
      const input = $('composer-input');
      input.value = suggestion.text;
      input.focus();
      $('suggestion-hint').textContent = suggestion.hint;
      $('suggestion-hint').hidden = false;
    }
  });
}
