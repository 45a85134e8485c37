/** Plan versions and approvals in memory: plans-repository.ts (the decisions on them are in decisions.ts). */
import { PlanSchema } from '../../model/plan/plan.ts';
import type { ApprovalRecord, NewApproval, PlansPort, PlanVersionRecord } from '../../ports/plans.ts';
import { copy, json, text, type MemoryTables, type Write } from './tables.ts';

/** Parsed on every read, as the real store reads a stored plan (an older schemaVersion comes back valid). */
const readVersion = (version: PlanVersionRecord): PlanVersionRecord => ({ ...copy(version), plan: PlanSchema.parse(json(version.plan)) });

export function insertApproval(tables: MemoryTables, input: NewApproval, write: Write): ApprovalRecord {
  tables.runRow(input.runId);
  const approval: ApprovalRecord = {
    runId: input.runId,
    planVersion: input.planVersion,
    userId: text(input.userId),
    decision: input.decision,
    via: input.via ?? 'person',
    need: input.need ?? null,
    why: input.why === undefined || input.why === null ? null : text(input.why),
    digest: input.digest ?? null,
    policyHash: input.policyHash ?? null,
    policyRules: input.policyRules ? [...input.policyRules] : null,
    policyGroups: input.policyGroups ? [...input.policyGroups] : null,
    createdAt: write.now,
  };
  tables.approvals.push(approval);
  return approval;
}

export function memoryPlanVersions(tables: MemoryTables): Omit<PlansPort, 'decide' | 'answer'> {
  return {
    async addPlanVersion(input) {
      const write = tables.begin();
      const row = tables.runRow(input.runId);
      const versions = tables.planVersions.filter((v) => v.runId === input.runId);
      const added: PlanVersionRecord = {
        runId: input.runId,
        version: Math.max(0, ...versions.map((v) => v.version)) + 1,
        plan: json(input.plan),
        authorKind: input.authorKind,
        authorId: text(input.authorId),
        parentVersion: input.parentVersion,
        reason: json(input.reason),
        createdAt: write.now,
      };
      tables.planVersions.push(added);
      if (input.proposed) {
        Object.assign(row.run, { currentPlanVersion: added.version, updatedAt: write.now });
        if (input.proposed.replans !== undefined) row.run.replans = input.proposed.replans;
        const data = { version: added.version, authorKind: added.authorKind, authorId: added.authorId, reason: added.reason };
        tables.appendEvent(row, { type: 'plan-proposed', data }, write);
      }
      return readVersion(added);
    },
    async getPlanVersion(runId, version) {
      const found = tables.planVersions.find((v) => v.runId === runId && v.version === version);
      return found && readVersion(found);
    },
    async listPlanVersions(runId) {
      return tables.planVersions
        .filter((v) => v.runId === runId)
        .sort((a, b) => a.version - b.version)
        .map(readVersion);
    },
    async recordApproval(input) {
      return copy(insertApproval(tables, input, tables.begin()));
    },
    async listApprovals(runId) {
      return tables.approvals.filter((a) => a.runId === runId).map(copy);
    },
  };
}
