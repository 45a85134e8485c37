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

export const RecordingSchema = z.object({
  task: z.string().min(1),
  /** Who answered: `hand-written`, or the `provider:model` a live run recorded. */
  source: z.string().min(1),
  answers: z.array(RecordedAnswerSchema),
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
