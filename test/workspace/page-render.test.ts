import { describe, expect, it } from 'vitest';
import { renderBlocks } from '../../src/workspace/local/page/blocks.js';
import { renderMrkdwn } from '../../src/workspace/local/page/mrkdwn.js';

// The page's renderers are plain ES modules the browser loads as they are; they run in Node unchanged.
describe('page rendering of mrkdwn', () => {
  it('formats bold, italic, code, emoji and line breaks', () => {
    expect(renderMrkdwn('*Goal:* check _now_ with `http_check`\n:white_check_mark: done')).toBe(
      '<strong>Goal:</strong> check <em>now</em> with <code>http_check</code><br><span class="emoji e-green" title="white_check_mark">✔</span> done',
    );
  });

  it('shows links, user names and group mentions, and escapes everything a tool or person wrote', () => {
    const html = renderMrkdwn(
      '<https://example.com/a?b=1&amp;c=2|the &lt;b&gt;run&lt;/b&gt;> by <@ULOCAL> for <!subteam^S1> &lt;script&gt;alert(1)&lt;/script&gt;',
      { ULOCAL: 'you' },
    );
    expect(html).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">the &lt;b&gt;run&lt;/b&gt;</a> by <span class="mention">@you</span> for <span class="mention">@S1</span> &lt;script&gt;alert(1)&lt;/script&gt;',
    );
  });

  it('never links a javascript: URL and never lets quotes out of an attribute', () => {
    expect(renderMrkdwn('<javascript:alert(1)|click>')).toBe('click');
    expect(renderMrkdwn('<https://x.test/"onmouseover="alert(1)|x>')).toContain('href="https://x.test/&quot;onmouseover=&quot;alert(1)"');
  });

  it('leaves underscores inside words alone', () => {
    expect(renderMrkdwn('run `run_1` of plan_actions_x')).toBe('run <code>run_1</code> of plan_actions_x');
  });
});

describe('page rendering of Block Kit', () => {
  it('draws a plan: header, section, context, divider and styled buttons bound to the message', () => {
    const html = renderBlocks(
      [
        { type: 'header', text: { type: 'plain_text', text: 'Plan v1: <check>' } },
        { type: 'section', text: { type: 'mrkdwn', text: '*1.* Check — `http_check`' }, fields: [{ type: 'mrkdwn', text: '*Risk* read' }] },
        { type: 'divider' },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'Requested by <@ULOCAL>' }] },
        {
          type: 'actions',
          block_id: 'plan-actions-1',
          elements: [
            { type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: 'plan-approve', value: 'r"1' },
            { type: 'button', text: { type: 'plain_text', text: 'Reject' }, style: 'danger', action_id: 'plan-reject', value: 'r1' },
          ],
        },
        { type: 'video' },
      ],
      { users: { ULOCAL: 'you' }, messageTs: '1.000001', interactive: true },
    );
    expect(html).toContain('<div class="bk-header">Plan v1: &lt;check&gt;</div>');
    expect(html).toContain('<strong>1.</strong> Check — <code>http_check</code>');
    expect(html).toContain('<div class="bk-fields"><div><strong>Risk</strong> read</div></div>');
    expect(html).toContain('<hr class="bk-divider">');
    expect(html).toContain('Requested by <span class="mention">@you</span>');
    expect(html).toContain(
      '<button type="button" class="bk-button primary" data-action-id="plan-approve" data-block-id="plan-actions-1" data-value="r&quot;1" data-message-ts="1.000001">Approve</button>',
    );
    expect(html).toContain('class="bk-button danger"');
    expect(html).toContain('[video block]');
  });

  it("draws modal inputs with their text, hints and the bot's field errors", () => {
    const html = renderBlocks(
      [
        {
          type: 'input',
          block_id: 'plan-yaml-0',
          optional: true,
          label: { type: 'plain_text', text: 'Plan (YAML)' },
          hint: { type: 'plain_text', text: 'Edit me' },
          element: { type: 'plain_text_input', action_id: 'yaml', multiline: true, initial_value: 'goal: </textarea><script>' },
        },
      ],
      { errors: { 'plan-yaml-0': 'Line 1: bad <yaml>' } },
    );
    expect(html).toContain('<textarea class="bk-input" data-block-id="plan-yaml-0" rows="4">goal: &lt;/textarea&gt;&lt;script&gt;</textarea>');
    expect(html).toContain('<div class="bk-hint">Edit me</div>');
    expect(html).toContain('<div class="bk-error" role="alert">Line 1: bad &lt;yaml&gt;</div>');
  });

  it('draws the status board as Slack draws a plan block: a checklist of task cards with their state, details, output and links, all escaped', () => {
    const html = renderBlocks([
      {
        type: 'plan',
        title: 'Running: ship <it>',
        tasks: [
          {
            type: 'task_card',
            task_id: 's1',
            title: '1. Check <site>',
            status: 'complete',
            details: { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'done · 2s' }] }] },
            output: { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'HTTP 200 <b>' }] }] },
            sources: [
              { type: 'url', url: 'https://example.test/r/1', text: 'link' },
              { type: 'url', url: 'javascript:alert(1)', text: 'bad' },
            ],
          },
          { type: 'task_card', task_id: 's2', title: '2. Merge', status: 'in_progress' },
          {
            type: 'task_card',
            task_id: 's3',
            title: '3. Skipped',
            status: 'pending',
            details: { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'skipped — this step did not run' }] }] },
          },
        ],
      },
    ]);
    expect(html).toContain('<div class="bk-plan-title">Running: ship &lt;it&gt;</div>');
    expect(html).toContain('<li class="bk-task bk-task-complete"><span class="bk-task-icon" title="complete">✔</span>');
    expect(html).toContain(
      '<div class="bk-task-title">1. Check &lt;site&gt;</div><div class="bk-task-details">done · 2s</div><div class="bk-task-output">HTTP 200 &lt;b&gt;</div>',
    );
    expect(html).toContain('<a href="https://example.test/r/1" target="_blank" rel="noopener noreferrer">link</a>');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('bk-task-in_progress');
    expect(html).toContain('skipped — this step did not run');
  });

  it('marks every task card state as Slack does, and an unknown state as pending', () => {
    const card = (status: string) => ({ type: 'task_card', task_id: status, title: status, status });
    const html = renderBlocks([{ type: 'plan', title: 'Run', tasks: ['pending', 'in_progress', 'complete', 'error', 'bogus'].map(card) }]);
    const marks = [...html.matchAll(/<li class="bk-task bk-task-(\w+)"><span class="bk-task-icon" title="([^"]+)">(.)<\/span>/g)].map((m) =>
      m.slice(1).join(' '),
    );
    expect(marks).toEqual(['pending pending ○', 'in_progress in progress ◐', 'complete complete ✔', 'error error ✖', 'pending pending ○']);
  });

  it('draws the feedback buttons under a summary as clickable thumbs bound to the message, escaped, the pressed one pressed', () => {
    const blocks = [
      {
        type: 'context_actions',
        block_id: 'summary-feedback',
        elements: [
          {
            type: 'feedback_buttons',
            action_id: 'run-feedback',
            positive_button: { text: { type: 'plain_text', text: 'Good' }, accessibility_label: 'This run went well', value: 'x' },
            negative_button: { text: { type: 'plain_text', text: 'Bad <b>' }, value: 'y' },
          },
        ],
      },
    ];
    const html = renderBlocks(blocks, { messageTs: '1.000002', interactive: true, feedbackPressed: 'negative' });
    expect(html).toContain(
      '<button type="button" class="bk-button bk-feedback" data-action-id="run-feedback" data-block-id="summary-feedback" data-feedback="positive" data-message-ts="1.000002" aria-label="This run went well" aria-pressed="false"><span class="bk-feedback-icon" aria-hidden="true">▲</span> Good</button>',
    );
    expect(html).toContain('class="bk-button bk-feedback pressed"');
    expect(html).toContain('data-feedback="negative"');
    expect(html).toContain('aria-label="Bad" aria-pressed="true"><span class="bk-feedback-icon" aria-hidden="true">▼</span> Bad &lt;b&gt;</button>');
    // The page never sends a value: the workspace looks the thumb up on the message.
    expect(html).not.toContain('data-value');
    expect(html).not.toContain('[context_actions block]');
    // In an ephemeral (not clickable in Slack either) the thumbs are shown disabled.
    expect(renderBlocks(blocks, {})).toContain('disabled>');
  });
});
