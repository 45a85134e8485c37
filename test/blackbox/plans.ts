/** Plan artifacts in their documented shape (docs/plan.schema.json), as a model would answer. */
export interface Step {
  id: string;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  dependsOn: string[];
  expect?: string;
}

export interface PlanArtifact {
  goal: string;
  confidence: number;
  steps: Step[];
  rollback: { id: string; title: string; tool: string; args: Record<string, unknown> }[];
  questions?: string[];
}

export function step(id: string, title: string, tool: string, args: Record<string, unknown>, dependsOn: string[] = []): Step {
  return { id, title, tool, args, dependsOn };
}

export function plan(goal: string, steps: Step[], extra: Partial<PlanArtifact> = {}): PlanArtifact {
  return { goal, confidence: 0.9, steps, rollback: [], ...extra };
}
