import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import { planJsonSchemaText } from '../../src/agent/model/plan/plan-json-schema.ts';

const root = new URL('../../', import.meta.url);

describe('the plan artifact', () => {
  it('docs/plan.schema.json matches the zod schema (regenerate with: npx tsx scripts/plan-schema.ts)', () => {
    const committed = readFileSync(new URL('docs/plan.schema.json', root), 'utf8');
    expect(committed).toBe(planJsonSchemaText());
  });

  const fixtures = readdirSync(new URL('test/fixtures/', root)).filter((name) => /^plan-v\d+-.*\.json$/.test(name));
  it('has frozen fixtures of stored plan versions', () => expect(fixtures.length).toBeGreaterThanOrEqual(3));

  it.each(fixtures)('%s still parses', (name) => {
    const raw: unknown = JSON.parse(readFileSync(new URL(`test/fixtures/${name}`, root), 'utf8'));
    const parsed = PlanSchema.safeParse(raw);
    expect(parsed.success ? 'ok' : parsed.error.message).toBe('ok');
    expect(parsed.data?.schemaVersion).toBe(1);
  });
});
