import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const manifest = parse(readFileSync(path.join(root, 'manifest.yml'), 'utf8')) as {
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] }; interactivity: { is_enabled: boolean }; socket_mode_enabled: boolean };
  features: { slash_commands: { command: string }[] };
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
  // Secondary sources: both take chat:write since Slack's 2026 agent updates; assistant:write is the older scope.
  'assistant.threads.setStatus': ['chat:write'],
  'agents.sessions.setStatus': ['chat:write'],
};

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
});
