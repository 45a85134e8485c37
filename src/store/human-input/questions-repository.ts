import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { OweAlong, QuestionRecord } from '../../agent/ports/run-store.ts';
import { insertOwing } from '../delivery/outbox-repository.ts';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { questions } from '../schema.ts';

type QuestionRow = typeof questions.$inferSelect;

const toQuestion = (row: QuestionRow): QuestionRecord => ({ ...row });

export async function insertQuestion(
  db: Db,
  input: Pick<QuestionRecord, 'runId' | 'stepId' | 'planVersion' | 'question'>,
  owed?: OweAlong,
): Promise<QuestionRecord> {
  const id = newId('q');
  const [row] = await insertOwing(
    db,
    {
      runId: input.runId,
      id,
      kind: 'question',
      insert: (tx) =>
        tx
          .insert(questions)
          // Strictly after the run's last question: "the oldest open question" must not depend on a clock that
          // gives two questions asked within its resolution the same time (PGlite's runs in milliseconds).
          .values({
            id,
            ...input,
            createdAt: sql`greatest(now(), (select max(q.created_at) + interval '1 microsecond' from questions q where q.run_id = ${input.runId}))`,
          })
          .returning(),
    },
    owed,
  );
  return toQuestion(row!);
}

export async function selectQuestions(db: Db, runId: string): Promise<QuestionRecord[]> {
  const rows = await db.select().from(questions).where(eq(questions.runId, runId)).orderBy(asc(questions.createdAt), asc(questions.id));
  return rows.map(toQuestion);
}

/** Answers the oldest open question; a second answer racing the first finds nothing open. */
export async function answerOldestQuestion(db: Db, input: { runId: string; answer: string; userId: string }): Promise<QuestionRecord | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const [open] = await db
      .select({ id: questions.id })
      .from(questions)
      .where(and(eq(questions.runId, input.runId), isNull(questions.answeredAt)))
      .orderBy(asc(questions.createdAt), asc(questions.id))
      .limit(1);
    if (!open) return undefined;
    const [row] = await db
      .update(questions)
      .set({ answer: input.answer, answeredBy: input.userId, answeredAt: sql`now()` })
      .where(and(eq(questions.id, open.id), isNull(questions.answeredAt)))
      .returning();
    if (row) return toQuestion(row);
  }
  return undefined;
}
