/** GitHub's issue search over the sandbox: `repo:`/`org:`/`is:`/`label:` qualifiers and plain words, as GitHub reads them. */
import { issueJson, type WebBase } from './sandbox-json.ts';
import type { SandboxWorld } from './sandbox-world.ts';

export function searchIssues(world: SandboxWorld, base: WebBase, q: string): ReturnType<typeof issueJson>[] {
  const terms = q.split(/\s+/).filter(Boolean);
  const qualifier = (name: string) =>
    terms.filter((term) => term.toLowerCase().startsWith(`${name}:`)).map((term) => term.slice(name.length + 1).toLowerCase());
  const words = terms.filter((term) => !term.includes(':')).map((term) => term.toLowerCase());
  const repos = qualifier('repo');
  const orgs = qualifier('org');
  const is = qualifier('is');
  const labels = qualifier('label');
  const found: ReturnType<typeof issueJson>[] = [];
  for (const [fullName, repo] of world) {
    // Several repo: (or org:) qualifiers widen the search, as on GitHub.
    if (repos.length && !repos.includes(fullName)) continue;
    if (orgs.length && !orgs.includes(repo.owner)) continue;
    for (const issue of repo.issues) {
      const state = issue.pull?.merged ? 'closed' : issue.state;
      if (is.includes('issue') && issue.pull) continue;
      if (is.includes('pr') && !issue.pull) continue;
      if (is.includes('open') && state !== 'open') continue;
      if (is.includes('closed') && state !== 'closed') continue;
      if (!labels.every((label) => issue.labels.includes(label))) continue;
      if (!words.every((word) => `${issue.title} ${issue.body ?? ''}`.toLowerCase().includes(word))) continue;
      found.push(issueJson(base, repo, issue));
    }
  }
  return found;
}
