import { randomUUID } from 'node:crypto';
import type { SlackFakeServer } from './server.ts';
import { slackSignatureHeaders } from './signing.ts';

export interface DriverResponse {
  status: number;
  /** Parsed JSON when the body is JSON, else the raw text ('' for an empty ack). */
  body: unknown;
}

/** A person's message as the driver sends it. */
interface PersonMessage {
  channel: string;
  user: string;
  text: string;
  threadTs?: string;
  eventId?: string;
}

export interface SendOptions {
  /** Seconds since the epoch to sign with; a value over 5 minutes old is "stale". */
  timestampS?: number;
  /** Sign with another secret (a forged request). */
  signingSecret?: string;
  retryNum?: number;
}

/** The kinds of Socket Mode envelope; over HTTP the same payloads go to `/slack/events`. */
export type EnvelopeType = 'events_api' | 'interactive' | 'slash_commands';

/** Another way to hand Slack's payloads to the bot than signed HTTP: e.g. a Socket Mode connection. */
export interface SlackTransport {
  deliver(type: EnvelopeType, payload: Record<string, unknown>, options: SendOptions): Promise<DriverResponse>;
}

type StateValues = Record<string, Record<string, { type: string; value?: string | null; selected_user?: string | null }>>;

/**
 * Plays Slack's side of the Events API and interactivity: builds the payloads Slack sends, signs them,
 * and posts them to the bot's `/slack/events`. With a fake server it also records the person's
 * message and issues trigger ids and response URLs there.
 */
export class SlackDriver {
  constructor(private readonly options: { eventsUrl?: string; signingSecret: string; fake?: SlackFakeServer; teamId?: string; transport?: SlackTransport }) {}

  /** Posts a raw body with a signature; the low-level call every other method uses. */
  async send(body: string, contentType: string, options: SendOptions = {}): Promise<DriverResponse> {
    const headers: Record<string, string> = {
      'content-type': contentType,
      ...slackSignatureHeaders({ signingSecret: options.signingSecret ?? this.options.signingSecret, body, timestampS: options.timestampS }),
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    if (!this.options.eventsUrl) throw new Error('SlackDriver: no eventsUrl to post to');
    const response = await fetch(this.options.eventsUrl, { method: 'POST', headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : '';
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed };
  }

  event(event: Record<string, unknown>, options: SendOptions & { eventId?: string } = {}): Promise<DriverResponse> & { eventId: string } {
    const eventId = options.eventId ?? `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
    const envelope = {
      token: 'legacy',
      team_id: this.teamId,
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: this.teamId, user_id: 'UBOT', is_bot: true }],
      event,
    };
    const sent = this.options.transport
      ? this.options.transport.deliver('events_api', envelope, options)
      : this.send(JSON.stringify(envelope), 'application/json', options);
    return Object.assign(sent, { eventId });
  }

  /** A person mentions the bot; `threadTs` makes it a reply in a thread. Returns the message ts too. */
  mention(input: PersonMessage, options: SendOptions = {}) {
    return this.personMessage({ type: 'app_mention' }, input, options);
  }

  /** A person writes to the bot in their DM with it (`channel` D…); `threadTs` makes it a reply in a thread. */
  directMessage(input: PersonMessage, options: SendOptions = {}) {
    return this.personMessage({ type: 'message', channel_type: 'im' }, input, options);
  }

  /** The event Slack sends for a person's message (kept in the fake's model when there is one), with its ts. */
  private personMessage(kind: Record<string, string>, input: PersonMessage, options: SendOptions) {
    const message = this.options.fake?.model.addUserMessage(input);
    const ts = message?.ts ?? `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    const event = {
      ...kind,
      user: input.user,
      text: input.text,
      ts,
      channel: input.channel,
      event_ts: ts,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    };
    const sent = this.event(event, { ...options, eventId: input.eventId });
    return Object.assign(sent, { ts });
  }

  appHomeOpened(user: string, options: SendOptions = {}): Promise<DriverResponse> {
    return this.event({ type: 'app_home_opened', user, channel: 'D1', tab: 'home', event_ts: `${Date.now() / 1000}` }, options);
  }

  /** A click on a message button. */
  click(
    input: {
      user: string;
      channel: string;
      messageTs: string;
      threadTs?: string;
      actionId: string;
      value?: string;
      blockId?: string;
      message?: { text?: string; blocks?: unknown[] };
      /** Slack's feedback buttons (thumbs up/down) send their own action type, with the pressed button's text. */
      feedback?: { text: string };
    },
    options: SendOptions = {},
  ): Promise<DriverResponse> {
    const action = input.feedback
      ? { type: 'feedback_buttons', text: { type: 'plain_text', text: input.feedback.text } }
      : ({ type: 'button' } as Record<string, unknown>);
    const payload = {
      ...this.interaction('block_actions', input.user),
      response_url: this.options.fake?.responseUrl() ?? 'http://127.0.0.1:9/respond',
      container: {
        type: 'message',
        message_ts: input.messageTs,
        channel_id: input.channel,
        is_ephemeral: false,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      },
      channel: { id: input.channel, name: input.channel },
      // Slack sends the clicked message's text and blocks; the bot rebuilds the message from them.
      message: { ...this.messageAsSeen(input.channel, input.messageTs, input.threadTs), ...(input.message ?? {}) },
      actions: [{ ...action, action_id: input.actionId, block_id: input.blockId ?? 'b', value: input.value, action_ts: `${Date.now() / 1000}` }],
    };
    return this.sendPayload(payload, options);
  }

  /** Submits a modal; `values` are the inputs' state as Slack reports them (see stateFromView). */
  submitView(
    input: { user: string; view: { id: string; callback_id: string; private_metadata?: string }; values: StateValues },
    options: SendOptions = {},
  ): Promise<DriverResponse> {
    const payload = {
      ...this.interaction('view_submission', input.user),
      view: { ...input.view, type: 'modal', team_id: this.teamId, state: { values: input.values }, hash: 'h', app_id: 'A1', bot_id: 'BBOT' },
      response_urls: [],
    };
    return this.sendPayload(payload, options);
  }

  command(input: { user: string; channel: string; text: string; command?: string }, options: SendOptions = {}): Promise<DriverResponse> {
    const fields = {
      token: 'legacy',
      team_id: this.teamId,
      team_domain: 'fake',
      channel_id: input.channel,
      channel_name: input.channel,
      user_id: input.user,
      user_name: input.user,
      command: input.command ?? '/tandem',
      text: input.text,
      api_app_id: 'A1',
      response_url: this.options.fake?.responseUrl() ?? 'http://127.0.0.1:9/respond',
      trigger_id: this.trigger(input.user),
    };
    if (this.options.transport) return this.options.transport.deliver('slash_commands', fields, options);
    return this.send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
  }

  /** Slack sends the clicked message with its blocks; the fake knows them when it posted the message. */
  private messageAsSeen(channel: string, ts: string, threadTs: string | undefined): Record<string, unknown> {
    const known = this.options.fake?.model.findMessage(channel, ts);
    const thread = threadTs ?? known?.threadTs;
    return { type: 'message', ts, ...(thread ? { thread_ts: thread } : {}), ...(known ? { text: known.text, blocks: known.blocks, user: known.user } : {}) };
  }

  /** Clicks a button, found by action id, of a message the fake holds. */
  clickButtonIn(
    message: { channel: string; ts: string; threadTs?: string; blocks?: unknown[] },
    actionId: string,
    user: string,
    options: SendOptions = {},
  ): Promise<DriverResponse> {
    const actionBlocks = (message.blocks ?? []) as { type?: string; block_id?: string; elements?: { action_id?: string; value?: string }[] }[];
    for (const block of actionBlocks) {
      const button = block.type === 'actions' ? block.elements?.find((element) => element.action_id === actionId) : undefined;
      if (button)
        return this.click(
          { user, channel: message.channel, messageTs: message.ts, threadTs: message.threadTs, actionId, value: button.value, blockId: block.block_id },
          options,
        );
    }
    throw new Error(`no button ${actionId} in message ${message.ts}`);
  }

  /** The fields every interactivity payload carries: who acted, in which team, with a fresh trigger id. */
  private interaction(type: string, user: string) {
    return {
      type,
      team: { id: this.teamId, domain: 'fake' },
      user: { id: user, username: user, team_id: this.teamId },
      api_app_id: 'A1',
      token: 'legacy',
      trigger_id: this.trigger(user),
    };
  }

  private sendPayload(payload: Record<string, unknown>, options: SendOptions): Promise<DriverResponse> {
    if (this.options.transport) return this.options.transport.deliver('interactive', payload, options);
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }

  private trigger(user: string): string {
    return this.options.fake?.issueTrigger(user) ?? `${Date.now()}.${randomUUID().slice(0, 8)}`;
  }

  private get teamId(): string {
    return this.options.teamId ?? 'T1';
  }
}

/** The state.values Slack would send for a modal: each input's initial value, with `edits` by block id. */
export function stateFromView(view: { blocks?: unknown }, edits: Record<string, string> = {}): StateValues {
  const values: StateValues = {};
  for (const block of (view.blocks as
    { type?: string; block_id?: string; element?: { action_id?: string; type?: string; initial_value?: string } }[] | undefined) ?? []) {
    if (block.type !== 'input' || !block.block_id || !block.element?.action_id) continue;
    const value = edits[block.block_id] ?? block.element.initial_value ?? null;
    values[block.block_id] = { [block.element.action_id]: { type: block.element.type ?? 'plain_text_input', value } };
  }
  return values;
}
