import { SlackRefusedError, type SlackPoster } from '../../integrations/tools/thread/slack-poster.ts';
import { slackErrorCode, type SlackClient } from './slack-client.ts';

export const MARKER_EVENT_TYPE = 'tandem_marker';

/**
 * slack_notify's way into Slack. The marker rides in message metadata, so after a crash the tool can
 * find out whether its message went out (conversations.history with metadata) instead of posting twice.
 */
export function createSlackPoster(client: SlackClient): SlackPoster {
  return {
    async postMessage({ channel, text, marker }) {
      const posted = await client.chat
        .postMessage({ channel, text, metadata: { event_type: MARKER_EVENT_TYPE, event_payload: { marker } } })
        .catch((error: unknown) => {
          // Slack answered `ok: false`: it said no, and nothing was posted.
          const refused = slackErrorCode(error);
          throw refused ? new SlackRefusedError(refused) : error;
        });
      const ts = posted.ts ?? '';
      const permalink = await client.chat.getPermalink({ channel: posted.channel ?? channel, message_ts: ts }).then(
        (result) => result.permalink,
        () => undefined,
      );
      return { ts, channel: posted.channel ?? channel, ...(permalink ? { permalink } : {}) };
    },

    async findMessage({ channel, marker, since }) {
      let cursor: string | undefined;
      for (let page = 0; page < 5; page += 1) {
        const history = await client.conversations.history({
          channel,
          oldest: (since.getTime() / 1000).toFixed(6),
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        });
        const found = history.messages?.find(
          (m) => m.metadata?.event_type === MARKER_EVENT_TYPE && (m.metadata.event_payload as { marker?: unknown } | undefined)?.marker === marker,
        );
        if (found?.ts) {
          const permalink = await client.chat.getPermalink({ channel, message_ts: found.ts }).then(
            (r) => r.permalink,
            () => undefined,
          );
          return { ts: found.ts, channel, ...(permalink ? { permalink } : {}) };
        }
        cursor = history.response_metadata?.next_cursor || undefined;
        if (!history.has_more || !cursor) return undefined;
      }
      return undefined;
    },
  };
}
