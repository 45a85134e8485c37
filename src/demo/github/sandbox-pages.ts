/**
 * What a link to the sandbox shows in a browser: one page per repository with its pull requests, issues
 * (and the comments Tandem wrote), releases and workflow runs, so "links to what was made" stay on this machine.
 */
import type { SandboxRepo } from './sandbox-world.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const list = (title: string, items: string[]) =>
  `<h2>${title}</h2>${items.length ? `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>` : '<p>none</p>'}`;

export function repoPage(repo: SandboxRepo): string {
  const issues = [...repo.issues].sort((a, b) => b.number - a.number);
  const state = (issue: SandboxRepo['issues'][number]) => (issue.pull?.merged ? 'merged' : issue.pull?.draft ? 'draft' : issue.state);
  const describe = (issue: SandboxRepo['issues'][number]) => {
    const comments = repo.comments
      .filter((comment) => comment.issueNumber === issue.number)
      .map((comment) => `<blockquote>${escape(comment.body)}</blockquote>`);
    const labels = issue.labels.length ? ` [${escape(issue.labels.join(', '))}]` : '';
    return `<span id="${issue.pull ? 'pull' : 'issue'}-${issue.number}">#${issue.number} ${escape(issue.title)} — ${state(issue)}${labels}</span>${comments.join('')}`;
  };
  const runs = [...repo.runs]
    .reverse()
    .map((run) => `<span id="run-${run.id}">${escape(run.name)} #${run.runNumber} on ${escape(run.branch)} (${run.event}): ${run.conclusion}</span>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${repo.owner}/${repo.name} · demo GitHub sandbox</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 50rem; margin: 2rem auto">
<p><strong>DEMO</strong> — Tandem's in-process GitHub sandbox on this machine. Nothing here is on github.com.</p>
<h1>${repo.owner}/${repo.name}</h1><p>${escape(repo.description)}</p>
${list('Pull requests', issues.filter((issue) => issue.pull).map(describe))}
${list('Issues', issues.filter((issue) => !issue.pull).map(describe))}
${list(
  'Releases',
  [...repo.releases]
    .reverse()
    .map(
      (release) => `<span id="release-${escape(release.tag)}">${escape(release.tag)}${release.draft ? ' (draft)' : ''}: ${escape(release.body ?? '')}</span>`,
    ),
)}
${list('Workflow runs', runs)}
</body></html>`;
}
