/** The plan's JSON Schema as published in docs/plan.schema.json (regenerate: `npx tsx scripts/plan-schema.ts`). */
import { z } from 'zod';
import { PlanSchema } from './plan.ts';

export function planJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PlanSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    $id: 'https://github.com/tandem/tandem/docs/plan.schema.json',
    title: 'Tandem plan',
    description: "The planner's output: validated, stored versioned, shown to people, editable by them.",
    ...schema,
  };
}

export function planJsonSchemaText(): string {
  return `${JSON.stringify(planJsonSchema(), null, 2)}\n`;
}
