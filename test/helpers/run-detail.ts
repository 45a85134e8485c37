import type { RunRecord } from '../../src/agent/ports/run-store.ts';
import { formatRunDetail, type RunDetail } from '../../src/cli/format-run.ts';

/** What `tandem show` prints of a run made only of the parts a test gives: every other part empty. */
export function showRun(run: RunRecord, parts: Partial<Omit<RunDetail, 'run'>> = {}): string {
  return formatRunDetail({
    run,
    versions: [],
    approvals: [],
    steps: [],
    attempts: [],
    escalations: [],
    questions: [],
    events: [],
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
    ...parts,
  });
}
