import type { Plan } from '../agent/model/plan/plan.ts';

export interface PastRun {
  task: string;
  plan: Plan;
}

export interface SimilarPlan extends PastRun {
  /** Jaccard similarity of the two tasks' word sets, 0..1: shared words over all words. */
  score: number;
  sharedWords: string[];
}

const STOP_WORDS = new Set(
  'a an and are as at be by can could do does for from has have i in is it its me my of on or our please the their them then this to us was we were what when which will with would you your'.split(' '),
);

/** Lowercased words, keeping `owner/name`, versions and hostnames whole, minus stop-words. */
export function taskWords(task: string): Set<string> {
  const words = task.toLowerCase().match(/[a-z0-9][a-z0-9._/-]*[a-z0-9]|[a-z0-9]/g) ?? [];
  return new Set(words.filter((word) => !STOP_WORDS.has(word)));
}

/**
 * The `k` past runs whose tasks share most words with this one (ties: the earlier in `past`, i.e. the more
 * recent when the store lists newest first). Runs sharing no word are not examples at all.
 */
export function similarPlans(task: string, past: readonly PastRun[], k: number): SimilarPlan[] {
  const words = taskWords(task);
  if (words.size === 0 || k <= 0) return [];
  const scored: (SimilarPlan & { order: number })[] = [];
  past.forEach((run, order) => {
    const other = taskWords(run.task);
    const sharedWords = [...words].filter((word) => other.has(word));
    if (sharedWords.length === 0) return;
    const union = new Set([...words, ...other]).size;
    scored.push({ ...run, score: sharedWords.length / union, sharedWords, order });
  });
  return scored
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, k)
    .map(({ order: _order, ...rest }) => rest);
}
