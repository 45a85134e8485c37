/**
 * The fake workspace's state: what Slack would show people. Tests read it to assert what a person
 * sees; the local-workspace feature renders it in a browser.
 */
export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  user: string;
  text: string;
  blocks: unknown[] | undefined;
  metadata: { event_type: string; event_payload: Record<string, unknown> } | undefined;
  edits: number;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  threadTs: string | undefined;
  text: string;
  blocks: unknown[] | undefined;
  ts: string;
}

export interface FakeView {
  id: string;
  hash: string;
  /** For modals: who opened it; for Home tabs: whose tab it is. */
  user: string | undefined;
  view: Record<string, unknown>;
  updates: number;
}

let lastIssuedUs = 0;

export class WorkspaceModel {
  readonly messages: FakeMessage[] = [];
  readonly ephemerals: FakeEphemeral[] = [];
  readonly views = new Map<string, FakeView>();
  readonly homeTabs = new Map<string, FakeView>();
  /** Replies sent through a response_url (slash commands, interactions). */
  readonly responses: { id: string; body: Record<string, unknown> }[] = [];
  readonly usergroups = new Map<string, string[]>();
  /** users.info answers with these; `tz` is the person's IANA zone, as Slack's profile has it. */
  /** `is_bot` and `deleted` (a deactivated account) as Slack's users.info has them. */
  readonly users = new Map<
    string,
    { id: string; name: string; real_name: string; tz?: string; tz_label?: string; tz_offset?: number; is_bot?: boolean; deleted?: boolean }
  >();
  readonly channels = new Set<string>(['C1', 'C2']);
  /** Who is in a channel (conversations.members); a channel not set here has everyone the workspace knows in it. */
  readonly channelMembers = new Map<string, string[]>();
  readonly bot = { userId: 'UBOT', botId: 'BBOT', teamId: 'T1' };
  /** Block types this workspace answers `invalid_blocks` for (e.g. `plan` where agent blocks are not on). */
  readonly refusedBlockTypes = new Set<string>();
  /** Which of Slack's agent surfaces the app may use here (off: the methods are refused). */
  readonly agentFeatures = { threadStatus: false, sessions: false };
  /** A thread's "is working…" status by `channel:threadTs`, as shown now; the bot's next message clears it. */
  readonly threadStatus = new Map<string, string>();
  readonly threadStatusLog: { channel: string; threadTs: string; status: string }[] = [];
  readonly sessionLog: { channel: string; threadTs: string | undefined; status: string }[] = [];
  private viewSeq = 0;

  /**
   * Message timestamps are unique and increasing, as Slack's are: microseconds of wall time, bumped
   * when two messages land in the same microsecond. Unique across fakes in one process too, so tests
   * sharing a database never see two threads with one ts.
   */
  nextTs(): string {
    lastIssuedUs = Math.max(Date.now() * 1000, lastIssuedUs + 1);
    return `${Math.floor(lastIssuedUs / 1e6)}.${String(lastIssuedUs % 1e6).padStart(6, '0')}`;
  }

  nextViewId(): string {
    this.viewSeq += 1;
    return `V${String(this.viewSeq).padStart(6, '0')}`;
  }

  findMessage(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /** The thread's messages in order, the parent first. */
  thread(channel: string, threadTs: string): FakeMessage[] {
    return this.messages.filter((m) => m.channel === channel && (m.ts === threadTs || m.threadTs === threadTs));
  }

  /** A channel's members: as set, or everyone known here (people with a profile and everyone who wrote a message). */
  membersOf(channel: string): string[] {
    const set = this.channelMembers.get(channel);
    if (set) return set;
    return [...new Set([...this.users.keys(), ...this.messages.map((m) => m.user)])];
  }

  ephemeralsFor(user: string): FakeEphemeral[] {
    return this.ephemerals.filter((e) => e.user === user);
  }

  /** A person's message (a mention) as it would sit in the channel before the bot sees it. */
  addUserMessage(input: { channel: string; user: string; text: string; threadTs?: string }): FakeMessage {
    this.channels.add(input.channel);
    const message: FakeMessage = {
      channel: input.channel,
      ts: this.nextTs(),
      threadTs: input.threadTs,
      user: input.user,
      text: input.text,
      blocks: undefined,
      metadata: undefined,
      edits: 0,
    };
    this.messages.push(message);
    return message;
  }
}
