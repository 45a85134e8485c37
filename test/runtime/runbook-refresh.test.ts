import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createRunbookCatalog } from '../../src/runbooks/catalog.ts';
import { createRunbooksStore } from '../../src/store/index.ts';
import { refreshRunbooksPeriodically } from '../../src/runtime/runbook-refresh.ts';
import { eventually } from '../fakes/slack-harness.ts';
import { useTestStore } from '../helpers/store.ts';

const db = useTestStore();
const logger = createLogger({ level: 'silent', secrets: [] });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tandem-refresh-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('runbooks saved on one replica reach the others', () => {
  it('a peer catalog that reloads periodically matches a runbook saved elsewhere', async () => {
    const here = await createRunbookCatalog({ store: createRunbooksStore(db.database.db), dir, logger });
    const peer = await createRunbookCatalog({ store: createRunbooksStore(db.database.db), dir, logger });
    const stop = refreshRunbooksPeriodically(peer, logger, 20);
    try {
      const run = await db.store.createRun({
        task: 'restart billing',
        requester: 'U1',
        conversation: { channel: 'C1', threadTs: 'refresh-1' },
        origin: 'mention',
      });
      const plan = PlanSchema.parse({
        goal: 'Restart billing',
        confidence: 0.9,
        steps: [{ id: 's1', title: 'Restart billing', tool: 'http_check', args: { url: 'https://billing.test' } }],
      });
      const version = await db.store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'fake', parentVersion: null, reason: null });
      await db.store.updateRun(run.id, { currentPlanVersion: version.version, status: 'succeeded', finishedAt: new Date() });
      expect(peer.match('restart payments')).toBeUndefined();

      const saved = await here.save({ runId: run.id, params: { service: 'billing' }, createdBy: 'U1', name: 'restart' });
      expect(saved.ok).toBe(true);
      expect(here.match('restart payments')?.name).toBe('restart'); // the saving replica at once
      await eventually(() => expect(peer.match('restart payments')?.params).toEqual({ service: 'payments' }));
    } finally {
      await stop();
    }
  });
});
