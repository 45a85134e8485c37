import type {
  ApprovalRecord,
  EscalationRecord,
  PlanVersionRecord,
  QuestionRecord,
  RunRecord,
  StepAttemptRecord,
  StepRecord,
} from '../agent/ports/run-store.ts';
import { storedTypeOf, type RunEvent } from '../agent/model/run-events.ts';
import type { FeedbackRecord } from '../store/index.ts';
import { terminalWords } from '../config/setting-variables.ts';
import { terminalSafe } from './terminal-safe.ts';

const time = (date: Date | null) =>
  date
    ? date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '—';
const json = (value: unknown) => JSON.stringify(value);
const seconds = (from: Date | null, to: Date | null) => (from && to ? `${((to.getTime() - from.getTime()) / 1000).toFixed(1)}s` : '');

export function formatRunList(runs: RunRecord[]): string {
  return terminalSafe(runs.map((r) => `${r.id}  ${r.status.padEnd(17)}  ${time(r.createdAt)}  ${r.requester}  ${truncate(r.task, 60)}`).join('\n'));
}

function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function author(version: PlanVersionRecord): string {
  if (version.authorKind === 'human') return `edited by ${version.authorId}`;
  if (version.authorKind === 'runbook') return `from runbook ${version.authorId}`;
  return `by the planner (${version.authorId})`;
}

export interface RunDetail {
  run: RunRecord;
  versions: PlanVersionRecord[];
  approvals: ApprovalRecord[];
  steps: StepRecord[];
  attempts: StepAttemptRecord[];
  escalations: EscalationRecord[];
  questions: QuestionRecord[];
  events: RunEvent[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  /** Thumbs up/down on the summary; absent for callers that do not read it. */
  feedback?: FeedbackRecord[];
  /** Each version's content digest, computed from its stored row now (plan-digest.ts). */
  digests?: ReadonlyMap<number, string>;
}

/** What an approval says of the content it bound to, next to what the stored row has now. */
function approvalDigest(a: ApprovalRecord, now: string | undefined): string {
  if (a.decision !== 'approved') return '';
  if (a.digest === null) return '  (approved before digests)';
  if (now !== undefined && now !== a.digest) return `  digest ${a.digest.slice(0, 12)} — MISMATCH: the stored plan now has ${now.slice(0, 12)}`;
  return `  digest ${a.digest.slice(0, 12)}`;
}

export function formatRunDetail(d: RunDetail): string {
  const out: string[] = [];
  const { run } = d;
  out.push(`run ${run.id}  ${run.status}`);
  out.push(`task: ${run.task}`);
  out.push(`requested by ${run.requester} via ${run.origin} in ${run.conversation.channel} (thread ${run.conversation.threadTs}) at ${time(run.createdAt)}`);
  if (run.finishedAt) out.push(`finished ${time(run.finishedAt)}`);
  // The id to look the run up by in a tracing backend (OTEL_EXPORTER_OTLP_ENDPOINT); runs from before it was stored have none.
  if (run.trace) out.push(`trace ${run.trace.traceId}`);
  out.push(`model usage: ${d.usage.inputTokens} tokens in, ${d.usage.outputTokens} out, $${d.usage.costUsd.toFixed(4)}`);

  for (const version of d.versions) {
    out.push(
      '',
      `plan v${version.version} ${author(version)} at ${time(version.createdAt)}${version.parentVersion ? ` (from v${version.parentVersion})` : ''}`,
    );
    if (version.reason) out.push(`  reason: ${terminalWords(version.reason)}`);
    const digest = d.digests?.get(version.version);
    if (digest) out.push(`  digest: ${digest} (short ${digest.slice(0, 12)})`);
    out.push(`  goal: ${version.plan.goal}  confidence ${version.plan.confidence}`);
    for (const step of version.plan.steps) {
      const deps = step.dependsOn.length ? ` after ${step.dependsOn.join(', ')}` : '';
      out.push(`  ${step.id}  ${step.tool}${deps}  ${step.title}  ${json(step.args)}`);
    }
    for (const step of version.plan.rollback) out.push(`  rollback ${step.id}  ${step.tool}  ${step.title}  ${json(step.args)}`);
    for (const question of version.plan.questions ?? []) out.push(`  question: ${question}`);
  }

  if (d.approvals.length) {
    out.push('', 'decisions:');
    for (const a of d.approvals)
      out.push(`  v${a.planVersion} ${a.decision} by ${a.userId} at ${time(a.createdAt)}${approvalDigest(a, d.digests?.get(a.planVersion))}`);
  }
  if (d.steps.length) {
    out.push('', 'steps:');
    for (const s of d.steps) {
      out.push(
        `  v${s.planVersion} ${s.kind === 'rollback' ? 'rollback ' : ''}${s.stepId}  ${s.status}  ${s.tool}  attempts ${s.attempt}  ${seconds(s.startedAt, s.finishedAt)}`,
      );
      for (const a of d.attempts.filter((x) => x.stepId === s.stepId && x.planVersion === s.planVersion)) {
        out.push(`    #${a.attempt} ${a.status} args ${json(a.executedArgs)}`);
        if (a.output) out.push(`       output ${truncate(json(a.output), 300)}`);
        if (a.error) out.push(`       error ${a.error.message}`);
      }
      if (s.status === 'skipped' && s.error) out.push(`    skipped: ${s.error.message}`);
    }
  }
  if (d.escalations.length) {
    out.push('', 'escalations:');
    for (const e of d.escalations)
      out.push(`  ${e.id} ${e.kind} ${e.status}${e.resolution ? ` → ${e.resolution} by ${e.resolvedBy}` : ''}: ${terminalWords(e.message)}`);
  }
  if (d.questions.length) {
    out.push('', 'questions:');
    for (const q of d.questions) out.push(`  ${q.question}${q.answer !== null ? ` → "${q.answer}" (${q.answeredBy})` : ' (open)'}`);
  }
  if (d.feedback?.length) {
    out.push('', 'feedback:');
    for (const f of d.feedback) out.push(`  ${f.value} from ${f.userId} on v${f.planVersion} (${f.authorKind} ${f.authorId}) at ${time(f.createdAt)}`);
  }
  out.push('', 'events:');
  for (const e of d.events)
    out.push(`  ${String(e.seq).padStart(3)} ${time(e.at)} ${storedTypeOf(e)} ${Object.keys(e.data).length ? truncate(json(e.data), 200) : ''}`.trimEnd());
  return terminalSafe(out.join('\n'));
}
