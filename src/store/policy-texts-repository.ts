/** Policy texts kept by hash (decision 028), written when a policy is loaded or reloaded, read by `tandem audit` (which loads them all at once). */
import type { PolicySource } from '../agent/ports/policy.ts';
import type { Db } from './database.ts';
import { policyTexts } from './schema.ts';

export async function savePolicyTexts(db: Db, hash: string, sources: readonly PolicySource[]): Promise<void> {
  await db
    .insert(policyTexts)
    .values({ hash, sources: sources.map(({ file, text }) => ({ file, text })) })
    .onConflictDoNothing();
}
