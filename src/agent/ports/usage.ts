export interface UsageRecord {
  runId: string | null;
  role: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ModelUsage {
  role: string;
  /** `provider:model` */
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** What the models cost, per call, per run and per role and model. */
export interface UsagePort {
  recordUsage(usage: UsageRecord): Promise<void>;
  usageTotals(runId: string): Promise<{ inputTokens: number; outputTokens: number; costUsd: number }>;
  /** The run's usage per role and `provider:model`, largest cost first. */
  usageByModel(runId: string): Promise<ModelUsage[]>;
}
