/**
 * One policy decision (issue 32): 200 rules naming 50 user groups, the approver in 3 of them, a merge
 * step on one of 40 repositories. Goal: p99 ≤ 1 ms per decision (the click path asks once per step and
 * approver). `npx tsx bench/policy.ts`.
 */
import type { PolicyQuestion } from '../src/agent/ports/policy.ts';
import { loadPolicy } from '../src/policy/cedar-engine.ts';
import { atMost, printFigures } from './support/figures.ts';

const GROUPS = Array.from({ length: 50 }, (_, i) => `S${String(i).padStart(3, '0')}`);
const ACTIONS = ['approve', 'confirm', 'answer', 'cancel'];
const rules = Array.from({ length: 200 }, (_, i) => {
  const group = GROUPS[i % GROUPS.length]!;
  const action = ACTIONS[i % ACTIONS.length]!;
  const resource = action === 'approve' || action === 'confirm' ? 'resource is Step' : 'resource is Run';
  const condition =
    resource === 'resource is Step'
      ? `resource.repository == "acme/repo-${i % 40}" && (resource.risk != "destructive" || principal != context.requester)`
      : `context.channel == "C${i % 7}"`;
  return `@id("rule-${i}") @approvals("${1 + (i % 2)}")\npermit (principal in Group::"${group}", action == Action::"${action}", ${resource})\nwhen { ${condition} };`;
});
const loaded = loadPolicy([{ file: 'bench.cedar', text: rules.join('\n\n') }]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
const engine = loaded.value;

const question = (i: number): PolicyQuestion => ({
  user: `U${i % 100}`,
  groups: [GROUPS[i % 50]!, GROUPS[(i * 7) % 50]!, GROUPS[(i * 13) % 50]!],
  action: 'approve',
  resource: {
    kind: 'step',
    step: { id: 's1', tool: 'github_merge_pull', risk: 'destructive', repository: `acme/repo-${i % 40}`, channel: 'C1', target: String(i), rollback: false },
  },
  situation: { requester: `U${(i + 1) % 100}`, channel: 'C1', confidence: 0.9, planVersion: 1, digest: 'abc' },
});

for (let i = 0; i < 500; i++) engine.decide(question(i));
const samples: number[] = [];
let permitted = 0;
for (let i = 0; i < 5000; i++) {
  const started = performance.now();
  if (engine.decide(question(i)).permitted) permitted++;
  samples.push(performance.now() - started);
}
samples.sort((a, b) => a - b);
const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
console.log(`policy: ${engine.rules.length} rules, ${engine.groups.length} groups, ${samples.length} decisions, ${permitted} permitted`);
printFigures('policy', [
  { name: 'decision p50', value: at(0.5), unit: 'ms' },
  { name: 'decision p99', value: at(0.99), unit: 'ms', ...atMost(1)(at(0.99)) },
]);
