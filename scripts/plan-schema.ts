/** Writes docs/plan.schema.json from the zod plan schema. Run: npx tsx scripts/plan-schema.ts */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { planJsonSchemaText } from '../src/agent/model/plan/plan-json-schema.ts';

const target = fileURLToPath(new URL('../docs/plan.schema.json', import.meta.url));
writeFileSync(target, planJsonSchemaText());
console.log(`wrote ${target}`);
