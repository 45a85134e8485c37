export const HELP_TEXT = [
  '*Tandem* plans a task, asks for approval, then runs it and reports in the thread.',
  '• Mention me with a task: `@Tandem merge PR 42 on acme/api once CI is green`',
  "• In a run's thread, mention me to answer my question, or say `cancel` to stop the run.",
  '• `/tandem status` — runs in progress',
  '• `/tandem runs` — your recent runs',
  '• `/tandem cancel &lt;runId&gt;` — stop a run',
  '• `/tandem schedule every weekday at 09:00 &lt;task&gt;` — run a task on a schedule (also: mention me with `every …`)',
  "• `/tandem schedules` — this channel's schedules, with Remove buttons",
  '• `/tandem help` — this text',
].join('\n');
