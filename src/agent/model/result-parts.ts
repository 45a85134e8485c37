/**
 * The pieces a step's result is made of: its schema (stored with the summary), the address labels, and
 * the readers of a tool's stored output. Shared by step-results.ts and the GitHub reads' words.
 */
import { z } from 'zod';

/** A link named by what it points to ("acme/api#42"), not "link". */
export const ResultLinkSchema = z.object({ label: z.string(), url: z.string() });
export type ResultLink = z.infer<typeof ResultLinkSchema>;

export const StepResultSchema = z.object({
  /** 'answer': what a read found; 'change': what a write did. */
  kind: z.enum(['answer', 'change']),
  /** One sentence (a change in the past tense, an answer as it reads). */
  text: z.string(),
  /** The object the sentence is about, labelled by what it is. */
  link: ResultLinkSchema.nullable(),
  /** A list the read found, shortened; `total` counts all of it and `rest` links to the whole list. */
  items: z.array(ResultLinkSchema).optional(),
  total: z.number().optional(),
  rest: z.string().nullable().optional(),
  /** A model's answer (llm_task, agent_task): its step's title, so the whole text can follow the summary under it. */
  title: z.string().optional(),
});
export type StepResult = z.infer<typeof StepResultSchema>;

/** How many items of a list the summary shows before linking to the rest. */
export const LIST_ITEMS = 5;

export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * "acme/api#42" for a GitHub issue or pull request address (github.com or an Enterprise host), else the
 * address's host and path: a reader sees what the link is before opening it.
 */
export function linkLabel(url: string): string {
  try {
    const parsed = new URL(url);
    const numbered = /^\/([^/]+)\/([^/]+)\/(?:pull|issues)\/(\d+)/.exec(parsed.pathname);
    if (numbered) return `${numbered[1]}/${numbered[2]}#${numbered[3]}`;
    const release = /^\/([^/]+)\/([^/]+)\/releases\/tag\/([^/]+)/.exec(parsed.pathname);
    if (release) return `${release[1]}/${release[2]} ${decodeURIComponent(release[3]!)}`;
    const compare = /^\/([^/]+)\/([^/]+)\/compare\/(.+)$/.exec(parsed.pathname);
    if (compare) return `${compare[1]}/${compare[2]} ${decodeURIComponent(compare[3]!)}`;
    const workflow = /^\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)/.exec(parsed.pathname);
    if (workflow) return `${workflow[1]}/${workflow[2]} workflow run`;
    const path = parsed.pathname === '/' ? '' : parsed.pathname;
    return `${parsed.host}${path}`;
  } catch {
    return url;
  }
}

export const linkTo = (url: string | undefined): ResultLink | null => (url ? { label: linkLabel(url), url } : null);

export function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
