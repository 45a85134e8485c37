import { sql } from 'drizzle-orm';

/** When a lease taken now for `leaseMs` runs out, on the database's clock (at least a millisecond away). */
export const leaseEnd = (leaseMs: number) => sql`now() + ${Math.max(1, Math.round(leaseMs))} * interval '1 millisecond'`;
