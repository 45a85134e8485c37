import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import ts from 'typescript';
import { loadRunbookFiles, matchRunbook } from '../../src/runbooks/index.ts';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const manifest = parse(readFileSync(path.join(root, 'manifest.yml'), 'utf8')) as {
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] }; interactivity: { is_enabled: boolean }; socket_mode_enabled: boolean };
  features: { slash_commands: { command: string }[]; agent_view?: { agent_description: string; suggested_prompts: { title: string; message: string }[] } };
};

/** The bot scope each Web API method needs (methods that need none map to []). */
const SCOPES_BY_METHOD: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.getPermalink': [],
  'views.open': [],
  'views.update': [],
  'views.publish': [],
  'views.push': [],
  'usergroups.users.list': ['usergroups:read'],
  'usergroups.list': ['usergroups:read'],
  'users.info': ['users:read'],
  'conversations.history': ['channels:history'],
  'conversations.replies': ['channels:history'],
  'conversations.members': ['channels:read'],
  // Secondary sources: both take chat:write since Slack's 2026 agent updates; assistant:write is the older scope.
  'assistant.threads.setStatus': ['chat:write'],
  'agents.sessions.setStatus': ['chat:write'],
};

/**
 * Scopes no method above needs, and why the app asks for them; any other scope in the manifest is one
 * the code does not use.
 */
const SCOPES_FOR_EVENTS_AND_FEATURES: Record<string, string> = {
  'app_mentions:read': 'the app_mention event',
  'im:history': 'message.im (tasks in a DM, the agent view) and conversations.replies in DMs',
  'groups:history': 'conversations.replies/history in private channels',
  'groups:read': 'conversations.members of private channels (App Home lists their waits only to their members)',
  commands: '/tandem',
  'chat:write.public': 'slack_notify posts to channels Tandem was not invited to',
  'assistant:write': 'assistant.threads.setStatus where Slack still asks for the older scope (the fallback is a message)',
};

/**
 * Values Slack's platform has (the assistant:write scope of assistant threads, the agent_session_stopped
 * event of agent sessions, which web-api's own event types already know) that the installed
 * @slack/web-api manifest types do not list yet.
 * They are swapped for a listed value before the type check; nothing else may be missing from the types.
 */
const NOT_YET_IN_THE_TYPES = { scopes: ['assistant:write'], events: ['agent_session_stopped'] };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Every Slack Web API method the bot's code calls, as `client.ns.method(` or `apiCall('ns.method'`. */
function methodsCalledByTheBot(): Set<string> {
  const methods = new Set<string>();
  const files = [...sourceFiles(path.join(root, 'src/bot')), ...sourceFiles(path.join(root, 'src/integrations/tools'))];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /\b(?:client|web|slack)\.(auth|chat|views|usergroups|users|conversations|reactions|files|team|assistant|agents)\.([a-zA-Z]+(?:\.[a-zA-Z]+)?)\(/g,
    )) {
      methods.add(`${m[1]}.${m[2]}`);
    }
    for (const m of text.matchAll(/apiCall\(\s*['"]([a-z]+\.[a-zA-Z.]+)['"]/g)) methods.add(m[1]!);
  }
  return methods;
}

describe('manifest.yml', () => {
  it("validates against Slack's official manifest schema v1.0.0", () => {
    const schema = JSON.parse(readFileSync(path.join(root, 'schemas/slack-manifest.schema.1.0.0.json'), 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('subscribes to mentions, enables interactivity, Socket Mode and /tandem', () => {
    expect(manifest.settings.event_subscriptions.bot_events).toContain('app_mention');
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.slash_commands.map((c) => c.command)).toContain('/tandem');
  });

  it('grants a scope for every Web API method the code calls', () => {
    const called = [...methodsCalledByTheBot()].sort();
    expect(called).toContain('chat.postMessage');
    const unknown = called.filter((method) => !(method in SCOPES_BY_METHOD));
    expect(unknown, 'add these methods and their scopes to SCOPES_BY_METHOD').toEqual([]);
    const missing = called.flatMap((method) =>
      SCOPES_BY_METHOD[method]!.filter((scope) => !manifest.oauth_config.scopes.bot.includes(scope)).map((scope) => `${method} needs ${scope}`),
    );
    expect(missing).toEqual([]);
  });

  it('declares agent_view, not the older assistant_view, with at most 4 suggested prompts that each match a bundled runbook', async () => {
    const features = manifest.features as Record<string, unknown>;
    expect(features.assistant_view).toBeUndefined();
    const agentView = manifest.features.agent_view!;
    expect(agentView.agent_description.length).toBeGreaterThan(0);
    expect(agentView.suggested_prompts.length).toBeGreaterThan(0);
    expect(agentView.suggested_prompts.length).toBeLessThanOrEqual(4);
    const { runbooks, problems } = await loadRunbookFiles(path.join(root, 'runbooks'));
    expect(problems).toEqual([]);
    const unmatched = agentView.suggested_prompts.filter((prompt) => !matchRunbook(prompt.message, runbooks)).map((prompt) => prompt.message);
    expect(unmatched).toEqual([]);
  });

  it('subscribes to exactly the events the code listens to', () => {
    const listened = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'src/bot'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/app\.event\(\s*'([a-z_.]+)'/g)) listened.add(m[1]!);
    }
    // The one `message` listener takes DMs only (channel_type im): Slack delivers those as message.im.
    expect(listened.delete('message')).toBe(true);
    listened.add('message.im');
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...listened].sort());
  });

  it('asks for no scope the code does not use', () => {
    const needed = new Set([...methodsCalledByTheBot()].flatMap((method) => SCOPES_BY_METHOD[method] ?? []));
    const unused = manifest.oauth_config.scopes.bot.filter((scope) => !needed.has(scope) && !(scope in SCOPES_FOR_EVENTS_AND_FEATURES));
    expect(unused).toEqual([]);
  });

  it('fits the manifest types of the installed @slack/web-api (which list agent_view since 7.19)', () => {
    const webApi = path.join(root, 'node_modules/@slack/web-api');
    const version = (JSON.parse(readFileSync(path.join(webApi, 'package.json'), 'utf8')) as { version: string }).version;
    const [major, minor] = version.split('.').map(Number) as [number, number];
    expect(major > 7 || (major === 7 && minor >= 19), `@slack/web-api ${version}`).toBe(true);
    const types = path.join(webApi, 'dist/types/request/manifest.d.ts');
    expect(readFileSync(types, 'utf8')).toContain('agent_view?: ManifestAgentView');

    const checked = structuredClone(manifest);
    const swap = (list: string[], lagging: string[], stand: string) => list.map((value) => (lagging.includes(value) ? stand : value));
    checked.oauth_config.scopes.bot = swap(checked.oauth_config.scopes.bot, NOT_YET_IN_THE_TYPES.scopes, 'chat:write');
    checked.settings.event_subscriptions.bot_events = swap(checked.settings.event_subscriptions.bot_events, NOT_YET_IN_THE_TYPES.events, 'app_mention');
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-manifest-'));
    try {
      const file = path.join(dir, 'manifest-check.ts');
      // An object literal assigned to the type: TypeScript also refuses any field the types do not know.
      writeFileSync(
        file,
        `import type { Manifest } from ${JSON.stringify(types.replace(/\.d\.ts$/, '.js'))};\nexport const manifest: Manifest = ${JSON.stringify(checked, null, 2)};\n`,
      );
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
