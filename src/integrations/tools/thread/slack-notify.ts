import { z } from 'zod';
import { linksLabelledByValues } from '../../slack/slack-links.ts';
import { pingsIn } from '../../slack/slack-pings.ts';
import { escapeText } from '../../slack/slack-text.ts';
import { defineTool } from '../define-tool.ts';
import { SlackRefusedError, type SlackPoster } from './slack-poster.ts';

const NOT_CONFIGURED = 'Slack is not configured (SLACK_BOT_TOKEN)';
/** The step's error code when a filled value made a ping the approver never read. */
export const PING_NOT_APPROVED = 'ping-not-approved';

/** The step's error code when a filled value labelled a link with words that are not its address. */
export const LINK_NOT_APPROVED = 'link-not-approved';

/** A ping or a disguised link the filled text has and the approved text did not: the step is refused, nothing posted. */
function refuseFilledText(planned: string, filled: string): { code: string; at: string; message: string } | undefined {
  const approved = pingsIn(planned);
  const added = pingsIn(filled).filter((ping) => !approved.includes(ping));
  const again = 'nothing was posted. To ping or label a link on purpose, write it in the plan itself (Modify) so an approver reads it.';
  if (added.length > 0)
    return {
      code: PING_NOT_APPROVED,
      at: 'text',
      message: `the text as filled in pings ${added.join(', ')}, which the approved plan does not: a value filled in at run time completed the mention, so ${again}`,
    };
  const [link] = linksLabelledByValues(planned, filled);
  if (!link) return undefined;
  return {
    code: LINK_NOT_APPROVED,
    at: 'text',
    message: `the text as filled in shows a link as "${link.label}" that leads to ${link.address}, which the approved plan does not: a value filled in at run time wrote the link's text, so ${again}`,
  };
}

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ channel: z.string(), ts: z.string(), url: z.string().nullable() });

export function createSlackNotifyTool(slack: SlackPoster | undefined) {
  return defineTool({
    name: 'slack_notify',
    description:
      'Post a message to a Slack channel (e.g. announce a release). The channel is a channel ID like C0123 or a name like #deploys. Mention a person by their user id as <@U0123>.',
    risk: 'write',
    output: Output,
    targets: ['channel'],
    input: z.object({
      channel: z.string().min(1).max(80).describe('Channel ID (C…) or #name'),
      text: z.string().min(1).max(3_000).describe('Message text (Slack mrkdwn)'),
    }),
    // The plan's own text keeps its mentions: the approver read it, `<!here>` and all, before it ran.
    // Text filled in from an earlier output (an issue title, a model's summary) was never shown, so
    // it is escaped and cannot mention a channel, a person or hide a link.
    quoteFilled: escapeText,
    // Escaping touches & < > only, so a value filled inside a `<…>` the plan wrote (`<!{{…}}>` and "channel")
    // still completes a ping, or (`<{{…}}>` and "https://a|the docs") labels a link with other words than its
    // address: the text as filled may ping only whom the approved text pings, and label only the links it labels.
    refuseFilled: (planned, filled) => refuseFilledText(typeof planned.text === 'string' ? planned.text : '', filled.text),
    run: async (args, ctx) => {
      if (!slack) return { status: 'error', error: { message: NOT_CONFIGURED, code: 'not-configured' } };
      try {
        const posted = await slack.postMessage({ channel: args.channel, text: args.text, marker: ctx.marker });
        return { status: 'ok', output: { channel: posted.channel, ts: posted.ts, url: posted.permalink ?? null } };
      } catch (error) {
        if (error instanceof SlackRefusedError)
          return { status: 'error', error: { message: `Slack did not post the message to ${args.channel}: ${error.slackError}`, code: error.slackError } };
        // Otherwise whether Slack stored the message is unknown once the request left; reconcile() looks for it.
        return { status: 'error', error: { message: `Slack did not confirm the message to ${args.channel}: ${(error as Error).message}`, uncertain: true } };
      }
    },
    reconcile: async (args, ctx) => {
      if (!slack) return { status: 'unknown', reason: NOT_CONFIGURED };
      try {
        const found = await slack.findMessage({ channel: args.channel, marker: ctx.marker, since: ctx.startedAt });
        return found
          ? { status: 'done', output: { channel: found.channel ?? args.channel, ts: found.ts, url: found.permalink ?? null } }
          : { status: 'not-done' };
      } catch (error) {
        return { status: 'unknown', reason: `could not read ${args.channel} history: ${(error as Error).message}` };
      }
    },
  });
}
