/**
 * `tandem policy check [path]`, `explain`, `test <cases.yaml>`: for the people who write the rules.
 * check prints each problem as `file:line:column message` and warns on a rule that permits everyone;
 * explain prints the decision and the rules behind it; test exits 1 when a case is decided otherwise.
 */
import { readFileSync } from 'node:fs';
import { POLICY_ACTIONS, type PolicyAction } from '../agent/ports/policy.ts';
import type { Config } from '../config/config.ts';
import { caseQuestion, caseRisk, parseCases, PolicyCaseSchema, runCases, type ToolRisk } from '../policy/policy-cases.ts';
import { createBuiltinTools } from '../integrations/tools/builtin-tools.ts';
import { loadPolicyInForce } from '../policy/policy-in-force.ts';
import { formatProblem } from '../policy/source-position.ts';
import type { CommandOptions } from './command-options.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

/** Each built-in tool's risk, as the bot sees it (the tools are only described, so no token is needed); made once. */
let builtinRisks: Map<string, ToolRisk> | undefined;
function builtinRisk(name: string): ToolRisk | undefined {
  builtinRisks ??= new Map(createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] }).map((tool) => [tool.name, tool.risk]));
  return builtinRisks.get(name);
}

const print: Out = (line) => process.stdout.write(`${line}\n`);
const printError: Out = (line) => process.stderr.write(`${line}\n`);

export function policyCommand(args: string[], options: CommandOptions, config: Readonly<Config>, out = print, err = printError): number {
  const [verb, ...rest] = args;
  switch (verb) {
    case 'check':
      return check(rest[0] ?? config.policy.path, config, out, err);
    case 'explain':
      return explain(options, config, out, err);
    case 'test':
      if (!rest[0]) throw new UsageError('policy test: expected a cases file, e.g. tandem policy test policy/cases.yaml');
      return test(rest[0], options.policy ?? config.policy.path, config, out, err);
    default:
      throw new UsageError(
        'policy: expected check [path], explain --user U… --action … [--tool …] [--repo …] [--target …] [--risk …, for a tool that is not built in], or test <cases.yaml>',
      );
  }
}

function load(path: string | undefined, config: Readonly<Config>, err: Out) {
  const loaded = loadPolicyInForce({ path, approvers: config.approvers, autoRunReadOnly: config.autoRunReadOnly, repos: config.github.repos });
  if (!loaded.ok) loaded.error.forEach((problem) => err(formatProblem(problem)));
  return loaded;
}

function check(path: string | undefined, config: Readonly<Config>, out: Out, err: Out): number {
  const loaded = load(path, config, err);
  if (!loaded.ok) return 1;
  loaded.value.warnings.forEach((problem) => err(`warning: ${formatProblem(problem)}`));
  out(`${path ?? 'built-in policy (TANDEM_POLICY unset)'}: ${loaded.value.rules.length} rules, valid (policy ${loaded.value.hash.slice(0, 12)})`);
  return 0;
}

function explain(options: CommandOptions, config: Readonly<Config>, out: Out, err: Out): number {
  if (!options.user || !options.action) throw new UsageError('policy explain: expected --user U… and --action (one of ' + POLICY_ACTIONS.join(', ') + ')');
  const parsed = PolicyCaseSchema.safeParse({
    name: 'explain',
    user: options.user,
    groups: options.group ?? [],
    action: options.action as PolicyAction,
    requester: options.requester,
    channel: options.channel,
    tool: options.tool,
    risk: options.risk,
    repo: options.repo,
    target: options.target,
    expect: 'permit',
  });
  if (!parsed.success) throw new UsageError(`policy explain: ${parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const risk = caseRisk(parsed.data, builtinRisk);
  if (!risk.ok) throw new UsageError(`policy explain: --${risk.error}`);
  const loaded = load(options.policy ?? config.policy.path, config, err);
  if (!loaded.ok) return 1;
  const decision = loaded.value.decide(caseQuestion(parsed.data, risk.value));
  const rules = new Map(loaded.value.rules.map((rule) => [rule.id, rule]));
  out(decision.permitted ? 'permit' : 'deny');
  for (const id of decision.rules) {
    const rule = rules.get(id);
    // A permit that takes several people is not the whole answer for one: say how many, as the plan message does.
    const needs = rule?.effect === 'permit' && rule.approvals > 1 ? `: needs ${rule.approvals} approvals (${rule.who})` : '';
    out(`  ${rule?.effect ?? 'rule'} ${id}${rule ? ` (${rule.file}:${rule.line})` : ''}${needs}`);
  }
  if (decision.rules.length === 0) out('  no rule matched: nothing is permitted unless a rule permits it');
  decision.errors.forEach((error) => out(`  error ${error}`));
  return 0;
}

function test(casesFile: string, path: string | undefined, config: Readonly<Config>, out: Out, err: Out): number {
  let text: string;
  try {
    text = readFileSync(casesFile, 'utf8');
  } catch (error) {
    err(`${casesFile}: cannot read the cases (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return 1;
  }
  const parsed = parseCases(text);
  if (!parsed.success) {
    err(`${casesFile}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    return 1;
  }
  const risks: ToolRisk[] = [];
  for (const c of parsed.data.cases) {
    const risk = caseRisk(c, builtinRisk);
    if (risk.ok) risks.push(risk.value);
    else err(`${casesFile}: case "${c.name}": ${risk.error}`);
  }
  if (risks.length < parsed.data.cases.length) return 1;
  const loaded = load(path, config, err);
  if (!loaded.ok) return 1;
  const outcomes = runCases(loaded.value, parsed.data.cases, risks);
  for (const outcome of outcomes) {
    const mark = outcome.got === outcome.expected ? 'ok  ' : 'FAIL';
    out(`${mark} ${outcome.name}: expected ${outcome.expected}, got ${outcome.got}${outcome.rules.length ? ` (${outcome.rules.join(', ')})` : ''}`);
  }
  const failed = outcomes.filter((outcome) => outcome.got !== outcome.expected).length;
  out(`${outcomes.length - failed} of ${outcomes.length} cases as expected`);
  return failed ? 1 : 0;
}
