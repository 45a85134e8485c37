/**
 * loadConfig: the environment (env-schema.ts) checked and turned into the frozen Config every part is
 * built from. A setting that cannot work stops start-up with a ConfigError naming the variable.
 */
import { ConfigError } from './config-error.ts';
import { EnvSchema, PricesSchema, type Env } from './env-schema.ts';
import { githubSettings, type GithubSettings } from './github-settings.ts';

export { ConfigError } from './config-error.ts';

export type Provider = 'openai' | 'anthropic';
/** The wire format of an OpenTelemetry export (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL). */
export type OtlpProtocol = NonNullable<Env['OTEL_EXPORTER_OTLP_PROTOCOL']>;
export interface ModelRoute {
  provider: Provider;
  model: string;
}

export interface Config {
  slack: {
    botToken: string | undefined;
    appToken: string | undefined;
    signingSecret: string | undefined;
    apiUrl: string;
    mode: 'socket' | 'http' | 'none';
    /** TANDEM_ALLOW_BOTS: other apps (bot ids B…, app ids A…) whose messages count as a person's; absent or empty: none. */
    allowBots?: readonly string[];
    /** A line every message the bot posts ends with (the demo's); absent: none. Set by the demo, not by a setting. */
    messageNote?: string;
  };
  port: number;
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined };
  /** `planner-fallback` plans once when the planner's answer stays invalid or its confidence is low; unset, nobody does. */
  models: { planner: ModelRoute | undefined; executor: ModelRoute | undefined; evaluator: ModelRoute | undefined; 'planner-fallback': ModelRoute | undefined };
  /** USD per million tokens, keyed `provider:model`; overrides the built-in table. */
  modelPrices: Record<string, { input: number; output: number }>;
  /** `app` is set when Tandem acts as a GitHub App (then `token` is not); `repos` is TANDEM_REPOS, lower case, or undefined when unset. */
  github: GithubSettings;
  database: { url: string | undefined; dataDir: string };
  approvers: string[];
  escalateTo: string | undefined;
  confidenceThreshold: number;
  budgets: { maxSteps: number; maxReplans: number; runTimeoutS: number; stepTimeoutS: number; maxTokens: number };
  /** Minutes before a waiting plan is reminded about and expires, and between re-pings of an open escalation. */
  housekeeping: { remindAfterS: number; waitTtlS: number };
  httpAllow: string[];
  autoRunReadOnly: boolean;
  /** TANDEM_POLICY (a .cedar file or folder; absent: the settings above as the built-in policy) and the schedule bounds. */
  policy: { path: string | undefined; maxSchedules: number; minScheduleIntervalS: number };
  /** TANDEM_ATTRIBUTION: Tandem's GitHub writes carry who asked, who approved, the plan version, digest and thread. */
  attribution: boolean;
  mcpConfigPath: string | undefined;
  runbooksDir: string;
  /** How the status board is drawn: Slack's plan block, sections, or the plan block until Slack refuses it. */
  boardStyle: 'auto' | 'plan' | 'sections';
  /** TANDEM_SHOW_COST: a run's summary shows its tokens and cost. */
  showCost: boolean;
  logLevel: Env['LOG_LEVEL'];
  /**
   * Runs exported as OpenTelemetry traces over OTLP: on when an OTLP endpoint is set, unless OTEL_SDK_DISABLED
   * or OTEL_TRACES_EXPORTER says otherwise. `content`: prompts, answers, tool args and the task on the spans (redacted).
   */
  tracing: { enabled: boolean; content: boolean; protocol: OtlpProtocol };
  /** Every secret value, so loggers and prompts can strip them. */
  secrets: string[];
}

const PROVIDER_PREFIX = /^(openai|anthropic):/;

/** `provider:model`; a bare model (another role's setting) takes `provider`, the planner's, and needs one. */
function parseRoute(ref: string | undefined, variable: string, provider?: Provider): ModelRoute | undefined {
  if (!ref) return undefined;
  const named = PROVIDER_PREFIX.exec(ref);
  if (named) return { provider: named[1] as Provider, model: ref.slice(named[0].length) };
  if (!provider)
    throw new ConfigError(variable, `expected provider:model (e.g. openai:${ref}); a model alone takes PLANNER_MODEL's provider, and PLANNER_MODEL is not set`);
  return { provider, model: ref };
}

/** Blank values count as unset, as they do in most .env files. */
function withoutBlanks(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== ''));
}

/**
 * `local`: `tandem start --local` or `--demo`, which talk to the browser workspace with a signing secret of their
 * own, so Slack's HTTP-mode settings are not needed even when a bot token is set.
 */
export function loadConfig(env: Record<string, string | undefined>, { local = false }: { local?: boolean } = {}): Readonly<Config> {
  const parsed = EnvSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const e = parsed.data;
  const modelPrices = parseModelPrices(e.TANDEM_MODEL_PRICES);
  const models = modelRoutes(e);
  const mode = e.SLACK_BOT_TOKEN ? (e.SLACK_APP_TOKEN ? 'socket' : 'http') : 'none';
  if (mode === 'http' && !e.SLACK_SIGNING_SECRET && !local) {
    throw new ConfigError('SLACK_SIGNING_SECRET', 'required in HTTP mode (or set SLACK_APP_TOKEN=xapp-… for Socket Mode)');
  }

  const github = githubSettings(e);
  const secrets = [
    e.SLACK_BOT_TOKEN,
    e.SLACK_APP_TOKEN,
    e.SLACK_SIGNING_SECRET,
    e.OPENAI_API_KEY,
    e.ANTHROPIC_API_KEY,
    e.GITHUB_TOKEN,
    databasePassword(e.DATABASE_URL),
    ...github.secrets,
    // An OTLP backend's API key travels in these headers.
    ...headerValues(e.OTEL_EXPORTER_OTLP_HEADERS),
    ...headerValues(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  ].filter((s): s is string => typeof s === 'string' && s.length >= 4);

  const config: Config = {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      appToken: e.SLACK_APP_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiUrl: withTrailingSlash(e.SLACK_API_URL),
      mode,
      allowBots: e.TANDEM_ALLOW_BOTS,
    },
    port: e.PORT,
    openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
    models,
    modelPrices,
    github: github.settings,
    database: { url: e.DATABASE_URL, dataDir: e.DATA_DIR },
    approvers: e.TANDEM_APPROVERS,
    escalateTo: e.TANDEM_ESCALATE_TO,
    confidenceThreshold: e.TANDEM_CONFIDENCE_THRESHOLD,
    budgets: {
      maxSteps: e.TANDEM_MAX_STEPS,
      maxReplans: e.TANDEM_MAX_REPLANS,
      runTimeoutS: e.TANDEM_RUN_TIMEOUT_S,
      stepTimeoutS: e.TANDEM_STEP_TIMEOUT_S,
      maxTokens: e.TANDEM_MAX_TOKENS,
    },
    housekeeping: {
      remindAfterS: e.TANDEM_REMIND_AFTER_S,
      waitTtlS: e.TANDEM_APPROVAL_TTL_S,
    },
    httpAllow: e.TANDEM_HTTP_ALLOW.map((h) => h.toLowerCase()),
    autoRunReadOnly: e.TANDEM_AUTO_RUN_READ_ONLY,
    policy: { path: e.TANDEM_POLICY, maxSchedules: e.TANDEM_MAX_SCHEDULES, minScheduleIntervalS: e.TANDEM_MIN_SCHEDULE_INTERVAL_S },
    attribution: e.TANDEM_ATTRIBUTION,
    mcpConfigPath: e.TANDEM_MCP_CONFIG,
    runbooksDir: e.TANDEM_RUNBOOKS_DIR,
    boardStyle: e.TANDEM_BOARD_STYLE,
    showCost: e.TANDEM_SHOW_COST,
    logLevel: e.LOG_LEVEL,
    tracing: {
      enabled: tracingEnabled(e),
      content: e.TANDEM_TRACE_CONTENT === 'on',
      // Protobuf unless said otherwise: the default OpenTelemetry's specification gives exporters, which collectors expect.
      protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    },
    secrets,
  };
  return deepFreeze(config);
}

const PRICES_EXPECTED = 'expected JSON like {"openai:gpt-4o":{"input":2.5,"output":10}} (USD per million tokens)';

function parseModelPrices(raw: string | undefined): Config['modelPrices'] {
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ConfigError('TANDEM_MODEL_PRICES', PRICES_EXPECTED);
  }
  const prices = PricesSchema.safeParse(json);
  if (!prices.success) throw new ConfigError('TANDEM_MODEL_PRICES', PRICES_EXPECTED);
  return prices.data;
}

/** Each role's model; the executor and evaluator default to the planner's, and a bare model name to its provider. A provider in use needs its key. */
function modelRoutes(e: Env): Config['models'] {
  const planner = parseRoute(e.PLANNER_MODEL, 'PLANNER_MODEL');
  const executor = parseRoute(e.EXECUTOR_MODEL, 'EXECUTOR_MODEL', planner?.provider) ?? planner;
  const evaluator = parseRoute(e.EVALUATOR_MODEL, 'EVALUATOR_MODEL', planner?.provider) ?? planner;
  const fallback = parseRoute(e.PLANNER_FALLBACK_MODEL, 'PLANNER_FALLBACK_MODEL', planner?.provider);
  const roles = { PLANNER_MODEL: planner, EXECUTOR_MODEL: executor, EVALUATOR_MODEL: evaluator, PLANNER_FALLBACK_MODEL: fallback };
  for (const [variable, route] of Object.entries(roles)) {
    if (route?.provider === 'openai' && !e.OPENAI_API_KEY && !e.OPENAI_BASE_URL) {
      throw new ConfigError('OPENAI_API_KEY', `required because ${variable} uses openai (or set OPENAI_BASE_URL for a local OpenAI-compatible server)`);
    }
    if (route?.provider === 'anthropic' && !e.ANTHROPIC_API_KEY) {
      throw new ConfigError('ANTHROPIC_API_KEY', `required because ${variable} uses anthropic`);
    }
  }
  return { planner, executor, evaluator, 'planner-fallback': fallback };
}

function tracingEnabled(e: Env): boolean {
  if (!e.OTEL_EXPORTER_OTLP_ENDPOINT && !e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return false;
  if (e.OTEL_SDK_DISABLED === 'true') return false;
  return e.OTEL_TRACES_EXPORTER === undefined || e.OTEL_TRACES_EXPORTER.split(',').some((name) => name.trim() === 'otlp');
}

/** `key1=value1,key2=value2` (W3C baggage form, values percent-encoded): the values, for redaction. */
function headerValues(headers: string | undefined): string[] {
  if (!headers) return [];
  return headers.split(',').flatMap((pair) => {
    const value = pair.slice(pair.indexOf('=') + 1).trim();
    if (!pair.includes('=') || !value) return [];
    try {
      return [value, decodeURIComponent(value)];
    } catch {
      return [value];
    }
  });
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function databasePassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
