/** What `tandem start` prints when it has no Slack app: the settings to set, and which one is missing when others are set. */
import { describe, expect, it } from 'vitest';
import { noSlackText } from '../../src/cli/start.ts';

describe('a start without SLACK_BOT_TOKEN', () => {
  it('says the bot token is missing when the app token is set without it, then what to set', () => {
    const text = noSlackText({ appToken: 'xapp-1-A-1', signingSecret: undefined });
    expect(text.split('\n')[0]).toBe('SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not: without the bot token Tandem cannot reach Slack.');
    expect(text).toContain('SLACK_BOT_TOKEN=xoxb-…');
  });

  it('names both when the app token and the signing secret are set without it', () => {
    expect(noSlackText({ appToken: 'xapp-1-A-1', signingSecret: 'secret' }).split('\n')[0]).toBe(
      'SLACK_APP_TOKEN and SLACK_SIGNING_SECRET are set but SLACK_BOT_TOKEN is not: without the bot token Tandem cannot reach Slack.',
    );
  });

  it('says only what to set when no Slack setting is there', () => {
    expect(noSlackText({ appToken: undefined, signingSecret: undefined })).toMatch(/^Tandem has no Slack app to talk to yet\./);
  });
});
