import { z } from 'zod';
import { pingsIn } from '../../slack/slack-pings.ts';
import { escapeText } from '../../slack/slack-text.ts';
import { defineTool } from '../define-tool.ts';
import { SlackRefusedError, type SlackPoster } from './slack-poster.ts';

const NOT_CONFIGURED = 'Slack is not configured (SLACK_BOT_TOKEN)';
/** The step's error code when a filled value made a ping the approver never read. */
export const PING_NOT_APPROVED = 'ping-not-approved';

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
    // still completes a ping: the text as filled may ping only whom the approved text pings.
    refuseFilled: (planned, filled) => {
      const approved = typeof planned.text === 'string' ? pingsIn(planned.text) : [];
      const added = pingsIn(filled.text).filter((ping) => !approved.includes(ping));
      if (added.length === 0) return undefined;
      return {
        code: PING_NOT_APPROVED,
        at: 'text',
        message:
          `the text as filled in pings ${added.join(', ')}, which the approved plan does not: a value filled in at run time completed the mention, so nothing was posted. ` +
          'To ping on purpose, write the mention itself in the plan (Modify) so an approver reads it.',
      };
    },
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
