/**
 * The allow-list's edges, case by case: which args are judged, when a planned reference waits for its
 * value, and what a refusal says. Each row is a behaviour an approver relies on (a step reaching a
 * repository off TANDEM_REPOS is refused at plan time, or judged once its value is known), and each was
 * a mutant of repository-allow-list.ts that the other tests let live (docs/mutation-survivors.md).
 */
import { describe, expect, it } from 'vitest';
import type { RepositoryReach } from '../../src/agent/ports/tool.ts';
import { checkPlanRepositories, repositoryRefusal, type ArgsStage } from '../../src/agent/model/repository-allow-list.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { said } from '../helpers/words.ts';

const ALLOWED = ['acme/api', 'globex/*'];
const REF = '{{steps.s1.output.text}}';

/** Words with a slash are repositories; text still holding a reference is not understood. */
function searchReach(args: Record<string, unknown>): RepositoryReach {
  if (args.everywhere === true) return 'any';
  const text = Object.values(args)
    .filter((value) => typeof value === 'string')
    .join(' ');
  if (text.includes('{{')) return { unreadable: 'it still holds a reference' };
  const repositories = text.split(' ').filter((word) => word.includes('/'));
  return repositories.length ? repositories : 'any';
}

const search = { targets: ['q'], repositories: searchReach };
const twoTargets = { targets: ['q', 'extra'], repositories: searchReach };
const noTargets = { targets: [], repositories: searchReach };
const repoWrite = { targets: ['repo'] };
const numberOnly = { targets: ['number'] };

type Row = [name: string, tool: object | undefined, args: Record<string, unknown>, stage: ArgsStage, expected: RegExp | null];

const rows: Row[] = [
  // A planned reference standing alone is set aside: the words around it are judged now.
  ['a repository named beside a lone reference is refused at once', search, { q: `evil/x ${REF}` }, 'planned', /^evil\/x is not on the allow-list/],
  ['a reference glued to a word waits for its value', search, { q: `acme/${REF}` }, 'planned', null],
  ['a reference that is a whole word waits when the rest is unbounded', search, { q: `${REF}` }, 'planned', null],
  ['args that are not targets still count for the reach once set aside', search, { q: `evil/x ${REF}`, everywhere: true }, 'planned', null],
  // One target holding a reference is enough to set the references aside; the other is judged as it is.
  ['with two targets, one reference sets it aside and the other is judged', twoTargets, { q: 'evil/x', extra: REF }, 'planned', /^evil\/x is not/],
  // A filled value is data: braces in it are text, never "filled later".
  ['a filled value with braces is judged as it is', search, { q: `evil/x ${REF}` }, 'filled', /could not be fully understood \(it still holds a reference\)/],
  // Which arg names the repository.
  ['a repo the tool does not call a target is not judged', numberOnly, { repo: 'evil/x', number: 1 }, 'filled', null],
  ['a step without a repo arg reaches no repository', repoWrite, { title: 'x' }, 'filled', null],
  [
    'a repo that is not text is not understood',
    repoWrite,
    { repo: 42 },
    'filled',
    /could not be fully understood \(a repository is written as owner\/name text\)/,
  ],
  ['two refused repositories are listed together', search, { q: 'evil/a evil/b' }, 'filled', /^evil\/a, evil\/b are not on the allow-list: /],
  ['one refused repository of several', search, { q: 'acme/api evil/b globex/web' }, 'filled', /^evil\/b is not on the allow-list: /],
  ['an unbounded reach is refused with how to bound it', search, { q: 'label:bug' }, 'filled', /reaches every repository.*repo:owner\/name/],
];

describe('the allow-list judges exactly the args that name a repository', () => {
  it.each(rows)('%s', (_name, tool, args, stage, expected) => {
    const refusal = repositoryRefusal(ALLOWED, tool as never, args, stage);
    if (expected === null) expect(refusal).toBeNull();
    else expect(said(refusal?.reason)).toMatch(expected);
  });

  it('names where in the plan a refused step is: its target, or "args" for a tool with none', () => {
    const plan = (tool: string, args: Record<string, unknown>): Plan => ({
      schemaVersion: 1,
      goal: 'g',
      confidence: 0.9,
      steps: [{ id: 's1', title: 't', tool, args, dependsOn: [] }],
      rollback: [],
    });
    const tools: Record<string, object> = { search, bare: noTargets };
    const toolOf = (name: string) => tools[name] as never;
    expect(checkPlanRepositories(plan('search', { q: 'evil/x' }), ALLOWED, toolOf).map((problem) => problem.at)).toEqual(['s1.args.q']);
    expect(checkPlanRepositories(plan('bare', { q: 'evil/x' }), ALLOWED, toolOf).map((problem) => problem.at)).toEqual(['s1.args.args']);
    expect(checkPlanRepositories(plan('search', { q: 'evil/x' }), undefined, toolOf)).toEqual([]);
  });
});
