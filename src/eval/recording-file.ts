/**
 * eval/recorded/<task>.json: the model's answers for one golden task, in call order per role, so
 * `tandem eval --recorded` replays them offline. Planner answers are in the planner's wire shape
 * (PlannerAnswerSchema: args as an argsJson string).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const RecordedAnswerSchema = z.object({
  role: z.enum(['planner', 'planner-fallback', 'executor', 'evaluator']),
  value: z.unknown(),
  /** Absent in hand-written recordings: the replay estimates tokens from text length. */
  usage: z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }).optional(),
});

/** `scripted`: answers a person wrote. `recorded: <provider:model> <YYYY-MM-DD>`: what that model answered that day (`tandem eval --record`). */
export const RecordingSourceSchema = z
  .string()
  .regex(/^(scripted|recorded: [a-z][a-z0-9-]*:\S+ \d{4}-\d{2}-\d{2})$/, 'expected "scripted" or "recorded: <provider:model> <YYYY-MM-DD>"');

export const RecordingSchema = z.object({
  task: z.string().min(1),
  source: RecordingSourceSchema,
  answers: z.array(RecordedAnswerSchema),
});

export function recordedSource(model: string, on: Date): string {
  return `recorded: ${model} ${on.toISOString().slice(0, 10)}`;
}

/** A tool-loop turn (agent_task) as a recording holds it: the executor's text and the calls it asked for. */
export const RecordedTurnSchema = z.object({
  text: z.string(),
  toolCalls: z.array(z.object({ id: z.string().min(1), name: z.string().min(1), args: z.unknown() })),
});

export type Recording = z.infer<typeof RecordingSchema>;
export type RecordedAnswer = z.infer<typeof RecordedAnswerSchema>;

export function recordingPath(dir: string, taskName: string): string {
  return path.join(dir, `${taskName}.json`);
}

export async function readRecording(dir: string, taskName: string): Promise<{ ok: true; value: Recording } | { ok: false; error: string }> {
  const file = recordingPath(dir, taskName);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { ok: false, error: `no recording at ${file} (record one with a configured model, or write it by hand)` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${file}: not valid JSON (${(error as Error).message})` };
  }
  const parsed = RecordingSchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  if (parsed.data.task !== taskName) return { ok: false, error: `${file}: recorded for task ${parsed.data.task}, not ${taskName}` };
  return { ok: true, value: parsed.data };
}

export async function writeRecording(dir: string, recording: Recording): Promise<void> {
  await writeFile(recordingPath(dir, recording.task), `${JSON.stringify(recording, null, 2)}\n`, 'utf8');
}
