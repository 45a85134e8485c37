/** `tandem eval --feedback`: what people said about runs, per planner model and per runbook. */
import { feedbackByAuthor } from '../store/index.ts';
import type { CommandOptions } from './command-options.ts';
import type { StoreCommandContext } from './command-io.ts';

export async function feedbackCommand({ io, openDatabase }: StoreCommandContext, options: Pick<CommandOptions, 'json'>): Promise<number> {
  const database = await openDatabase();
  try {
    const rows = await feedbackByAuthor(database.db);
    if (options.json) {
      io.out(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    io.out(`${formatFeedback(rows)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

/** People edit plans too; their versions are listed apart so a model is judged on its own plans. */
export function formatFeedback(rows: { authorKind: string; authorId: string; good: number; bad: number }[]): string {
  if (rows.length === 0) return 'no feedback yet (people give it with the buttons under a run summary)';
  const label: Record<string, string> = { planner: 'planner model', runbook: 'runbook', human: 'edited by' };
  return rows
    .map((row) => {
      const total = row.good + row.bad;
      const share = total ? Math.round((row.good / total) * 100) : 0;
      return `${(label[row.authorKind] ?? row.authorKind).padEnd(13)} ${row.authorId.padEnd(32)} ${String(row.good).padStart(4)} good ${String(row.bad).padStart(4)} bad  ${share}% good`;
    })
    .join('\n');
}
