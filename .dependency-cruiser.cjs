/* global module */
/**
 * The layers, enforced at any import depth (`npm run lint:deps`, part of `npm test`). docs/architecture.md
 * draws the same picture.
 */
const layer = (name) => `^src/${name}/`;

module.exports = {
  forbidden: [
    {
      name: 'agent-is-pure',
      comment: 'The agent core knows no SDK, database, Slack or GitHub: it talks through its ports (src/agent/ports).',
      severity: 'error',
      from: { path: layer('agent') },
      to: { pathNot: ['^src/agent/', 'node_modules/zod/'] },
    },
    {
      name: 'agent-model-is-a-leaf',
      comment:
        'The plan model, budgets, refusal codes and the tool registry are plain data and pure functions: they import only zod, each other and the text helpers (and the Tool interface the registry lists).',
      severity: 'error',
      from: { path: '^src/agent/model/' },
      to: { path: '^src/agent/', pathNot: ['^src/agent/model/', '^src/agent/text/', '^src/agent/ports/tool\\.ts$'] },
    },
    {
      name: 'agent-text-is-a-leaf',
      comment: 'Words for people, redaction and storable text are used everywhere and depend on nothing of the agent.',
      severity: 'error',
      from: { path: '^src/agent/text/' },
      to: { path: '^src/agent/', pathNot: '^src/agent/text/' },
    },
    {
      name: 'agent-ports-are-interfaces',
      comment: 'A port names what the core needs in terms of the model; it imports no decision, planning or execution code.',
      severity: 'error',
      from: { path: '^src/agent/ports/' },
      to: { path: '^src/agent/', pathNot: ['^src/agent/ports/', '^src/agent/model/', '^src/agent/text/'] },
    },
    {
      name: 'execution-asks-no-planner-or-person',
      comment:
        "Execution runs an approved version; failures and waits leave it as values for the wiring to act on, so it imports neither planning, people's decisions nor waits.",
      severity: 'error',
      from: { path: '^src/agent/execution/' },
      to: { path: ['^src/agent/planning/', '^src/agent/decisions/', '^src/agent/waits/'] },
    },
    {
      name: 'replicas-do-not-drive-runs',
      comment: 'Leases and timers say which replica owns what and when; driving a run is execution, started by the wiring.',
      severity: 'error',
      from: { path: '^src/agent/replicas/' },
      to: { path: ['^src/agent/execution/', '^src/agent/planning/', '^src/agent/decisions/'] },
    },
    {
      name: 'only-the-wiring-drives',
      comment:
        'Decisions, planning, waits and execution say what should happen next as an Effect (ports/effects.ts); only the wiring (agent.ts, agent-context.ts, effects-runner.ts) reaches the run drivers and background work that perform it.',
      severity: 'error',
      from: { path: '^src/agent/', pathNot: ['^src/agent/(agent|agent-context|effects-runner)\\.ts$', '^src/agent/replicas/'] },
      to: { path: '^src/agent/replicas/(run-drivers|background-work)\\.ts$' },
    },
    {
      name: 'delivery-only-delivers',
      comment: 'Delivery draws the board and sends what a run owes its thread; it decides nothing.',
      severity: 'error',
      from: { path: '^src/agent/delivery/' },
      to: { path: ['^src/agent/execution/', '^src/agent/planning/', '^src/agent/decisions/', '^src/agent/replicas/'] },
    },
    {
      name: 'config-is-a-leaf',
      comment: 'Configuration is read once and passed down; it depends on nothing of ours.',
      severity: 'error',
      from: { path: layer('config') },
      to: { path: '^src/', pathNot: layer('config') },
    },
    {
      name: 'bot-knows-no-github-or-store',
      comment: 'The Slack surface reaches runs through the agent API, never the database or GitHub directly.',
      severity: 'error',
      from: { path: layer('bot') },
      to: { path: ['^src/store/', '^src/integrations/github/', 'node_modules/(octokit|@octokit|postgres|@electric-sql|drizzle-orm)/'] },
    },
    {
      name: 'integrations-know-no-surface-or-store',
      comment: 'Tools and model adapters are used by the agent; they do not reach Slack listeners, the store or the wiring.',
      severity: 'error',
      from: { path: layer('integrations') },
      to: { path: ['^src/bot/', '^src/store/', '^src/runtime/', '^src/cli/', '^src/workspace/'] },
    },
    {
      name: 'store-is-below-everything',
      comment:
        "The store implements the agent's, the runbooks' and the schedules' ports; it does not import the surfaces, integrations or wiring, nor the scheduler beyond its port.",
      severity: 'error',
      from: { path: layer('store') },
      to: {
        path: ['^src/bot/', '^src/integrations/', '^src/runtime/', '^src/cli/', '^src/workspace/', '^src/schedules/', '^src/eval/'],
        pathNot: '^src/schedules/schedules-port\\.ts$',
      },
    },
    {
      name: 'runbooks-and-schedules-take-ports',
      comment:
        'The runbook catalog and the scheduler reach the database through the ports they define (RunbooksPort, SchedulesPort), which src/store implements: the store may depend on them, never the reverse.',
      severity: 'error',
      from: { path: ['^src/runbooks/', '^src/schedules/'] },
      to: { path: ['^src/store/', 'node_modules/(postgres|@electric-sql|drizzle-orm)/'] },
    },
    {
      name: 'only-the-cli-starts-things',
      comment: 'The runtime wires everything; only the CLI (and tests) import it, and nothing imports the CLI.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/runtime/'] },
      to: { path: ['^src/runtime/', '^src/cli/'] },
    },
    {
      name: 'memory-store-is-for-tests',
      comment: 'The in-memory RunStore (src/agent/testing/memory-store) is for unit tests only: the product keeps its runs in src/store.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/agent/testing/' },
      to: { path: '^src/agent/testing/memory-store/' },
    },
    {
      name: 'no-tests-in-src',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ['^test/', '^bench/'] },
    },
    {
      name: 'no-cycles',
      comment: 'Types included: a type two modules need lives in a third (a port, context.ts, plan-problems.ts), not in either.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-dev-dependencies-at-run-time',
      comment: 'The Docker image installs production dependencies only.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
