import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

const modelRef = z
  .string()
  .regex(/^(openai|anthropic):\S+$/, 'expected provider:model, e.g. openai:gpt-4o or anthropic:claude-sonnet-4-5')
  .optional();

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

// --- GitHub: a token or a GitHub App, and the repository allow-list -------------------------------
const REPO_PATTERN = /^[A-Za-z0-9_.-]+\/(?:[A-Za-z0-9_.-]+|\*)$/;

const GithubAppEnv = z.object({
  GITHUB_APP_ID: z.string().regex(/^\d+$/, "expected the App's numeric ID from its settings page (not the client ID)").optional(),
  GITHUB_APP_PRIVATE_KEY: z.string().optional(),
  GITHUB_APP_PRIVATE_KEY_FILE: z.string().optional(),
  TANDEM_REPOS: csv.pipe(z.array(z.string().regex(REPO_PATTERN, 'expected owner/name or owner/* entries, comma-separated'))),
});

export interface GithubAppCredentials {
  appId: string;
  /** PKCS#8 PEM, whatever form it was given in. */
  privateKey: string;
}

type GithubEnv = z.infer<typeof GithubAppEnv> & { GITHUB_TOKEN?: string | undefined; GITHUB_API_URL: string };

function githubSettings(e: GithubEnv): { settings: Config['github']; secrets: string[] } {
  const app = githubApp(e);
  const repos = e.TANDEM_REPOS.length ? e.TANDEM_REPOS.map((entry) => entry.toLowerCase()) : undefined;
  const settings = { token: e.GITHUB_TOKEN, apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''), app: app?.credentials, repos };
  return { settings, secrets: app?.secrets ?? [] };
}

function githubApp(e: GithubEnv): { credentials: GithubAppCredentials; secrets: string[] } | undefined {
  const { GITHUB_APP_ID: appId, GITHUB_APP_PRIVATE_KEY: inline, GITHUB_APP_PRIVATE_KEY_FILE: file } = e;
  if (!appId && !inline && !file) return undefined;
  if (!appId) throw new ConfigError('GITHUB_APP_ID', "required with a GitHub App private key: the numeric App ID from the App's settings page");
  // Two identities for the same writes would make "who did this" depend on code paths: pick one.
  if (e.GITHUB_TOKEN) throw new ConfigError('GITHUB_TOKEN', 'set either GITHUB_TOKEN or GITHUB_APP_ID with its private key, not both');
  if (inline && file) throw new ConfigError('GITHUB_APP_PRIVATE_KEY', 'set either GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, not both');
  if (!inline && !file)
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY', 'required because GITHUB_APP_ID is set (or GITHUB_APP_PRIVATE_KEY_FILE with the path of the .pem file)');
  const raw = inline ?? readKeyFile(file!);
  const privateKey = parsePrivateKey(raw, inline ? 'GITHUB_APP_PRIVATE_KEY' : 'GITHUB_APP_PRIVATE_KEY_FILE');
  return { credentials: { appId, privateKey }, secrets: [raw, privateKey, ...pemBodyLines(raw), ...pemBodyLines(privateKey)] };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY_FILE', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A .env file often holds the PEM on one line with `\n` escapes; GitHub signs with RS256, so the key must be RSA. */
function parsePrivateKey(raw: string, variable: string): string {
  const pem = raw.trim().replace(/\\n/g, '\n');
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
    return key.export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch {
    throw new ConfigError(
      variable,
      "not a valid RSA private key in PEM form: use the .pem file from the GitHub App's settings page (-----BEGIN RSA PRIVATE KEY----- …)",
    );
  }
}

/** Each base64 line of a key, so a key logged with its line breaks escaped is still redacted. */
function pemBodyLines(pem: string): string[] {
  return pem
    .replace(/\\n/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
}
// --- end GitHub -----------------------------------------------------------------------------------

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, 'expected a bot token starting with xoxb-')
    .optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'expected an app-level token starting with xapp-')
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_API_URL: httpUrl.default('https://slack.com/api/'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: httpUrl.optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: httpUrl.optional(),
  PLANNER_MODEL: modelRef,
  EXECUTOR_MODEL: modelRef,
  EVALUATOR_MODEL: modelRef,
  PLANNER_FALLBACK_MODEL: modelRef,
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  ...GithubAppEnv.shape,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres://user@host:port/db URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  TANDEM_APPROVERS: csv.pipe(z.array(z.string().regex(/^[US][A-Z0-9]+$/, 'expected Slack user (U…) or user-group (S…) IDs, comma-separated'))),
  TANDEM_ESCALATE_TO: z
    .string()
    .regex(/^[US][A-Z0-9]+$/, 'expected a Slack user (U…) or user-group (S…) ID')
    .optional(),
  TANDEM_CONFIDENCE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.6),
  TANDEM_MAX_STEPS: positiveInt(20),
  TANDEM_MAX_REPLANS: z.coerce.number().int().min(0).default(2),
  TANDEM_RUN_TIMEOUT_S: positiveInt(3600),
  TANDEM_STEP_TIMEOUT_S: positiveInt(600),
  TANDEM_MAX_TOKENS: positiveInt(200_000),
  TANDEM_APPROVAL_REMIND_MIN: positiveInt(30),
  TANDEM_APPROVAL_EXPIRE_MIN: positiveInt(1440),
  TANDEM_ESCALATION_REPING_MIN: positiveInt(60),
  TANDEM_HTTP_ALLOW: csv,
  TANDEM_AUTO_RUN_READ_ONLY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  TANDEM_MCP_CONFIG: z.string().min(1).optional(),
  TANDEM_MODEL_PRICES: z.string().optional(),
  TANDEM_RUNBOOKS_DIR: z.string().min(1).default('./runbooks'),
  TANDEM_BOARD_STYLE: z.enum(['auto', 'plan', 'sections'], { error: 'expected auto, plan or sections' }).default('auto'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Provider = 'openai' | 'anthropic';
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
  };
  port: number;
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined };
  /** `planner-fallback` plans once when the planner's answer stays invalid or its confidence is low; unset, nobody does. */
  models: { planner: ModelRoute | undefined; executor: ModelRoute | undefined; evaluator: ModelRoute | undefined; 'planner-fallback': ModelRoute | undefined };
  /** USD per million tokens, keyed `provider:model`; overrides the built-in table. */
  modelPrices: Record<string, { input: number; output: number }>;
  /** `app` is set when Tandem acts as a GitHub App (then `token` is not); `repos` is TANDEM_REPOS, lower case, or undefined when unset. */
  github: { token: string | undefined; apiUrl: string; app: GithubAppCredentials | undefined; repos: readonly string[] | undefined };
  database: { url: string | undefined; dataDir: string };
  approvers: string[];
  escalateTo: string | undefined;
  confidenceThreshold: number;
  budgets: { maxSteps: number; maxReplans: number; runTimeoutS: number; stepTimeoutS: number; maxTokens: number };
  /** Minutes before a waiting plan is reminded about and expires, and between re-pings of an open escalation. */
  housekeeping: { approvalRemindMin: number; approvalExpireMin: number; escalationRepingMin: number };
  httpAllow: string[];
  autoRunReadOnly: boolean;
  mcpConfigPath: string | undefined;
  runbooksDir: string;
  /** How the status board is drawn: Slack's plan block, sections, or the plan block until Slack refuses it. */
  boardStyle: 'auto' | 'plan' | 'sections';
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  /** Every secret value, so loggers and prompts can strip them. */
  secrets: string[];
}

/** A setting that stops start-up; the message is one line naming the variable and the expected form. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    readonly expected: string,
  ) {
    super(`${variable}: ${expected}`);
  }
}

const PricesSchema = z.record(z.string(), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }));

function parseRoute(ref: string | undefined): ModelRoute | undefined {
  if (!ref) return undefined;
  const at = ref.indexOf(':');
  return { provider: ref.slice(0, at) as Provider, model: ref.slice(at + 1) };
}

/** Blank values count as unset, as they do in most .env files. */
function withoutBlanks(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== ''));
}

export function loadConfig(env: Record<string, string | undefined>): Readonly<Config> {
  const parsed = EnvSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const e = parsed.data;

  let modelPrices: Config['modelPrices'] = {};
  if (e.TANDEM_MODEL_PRICES) {
    let json: unknown;
    try {
      json = JSON.parse(e.TANDEM_MODEL_PRICES);
    } catch {
      throw new ConfigError('TANDEM_MODEL_PRICES', 'expected JSON like {"openai:gpt-4o":{"input":2.5,"output":10}} (USD per million tokens)');
    }
    const prices = PricesSchema.safeParse(json);
    if (!prices.success)
      throw new ConfigError('TANDEM_MODEL_PRICES', 'expected JSON like {"openai:gpt-4o":{"input":2.5,"output":10}} (USD per million tokens)');
    modelPrices = prices.data;
  }

  const planner = parseRoute(e.PLANNER_MODEL);
  // The executor and evaluator default to the planner's model.
  const executor = parseRoute(e.EXECUTOR_MODEL) ?? planner;
  const evaluator = parseRoute(e.EVALUATOR_MODEL) ?? planner;
  const fallback = parseRoute(e.PLANNER_FALLBACK_MODEL);
  const roles = { PLANNER_MODEL: planner, EXECUTOR_MODEL: executor, EVALUATOR_MODEL: evaluator, PLANNER_FALLBACK_MODEL: fallback };
  for (const [variable, route] of Object.entries(roles)) {
    if (route?.provider === 'openai' && !e.OPENAI_API_KEY && !e.OPENAI_BASE_URL) {
      throw new ConfigError('OPENAI_API_KEY', `required because ${variable} uses openai (or set OPENAI_BASE_URL for a local OpenAI-compatible server)`);
    }
    if (route?.provider === 'anthropic' && !e.ANTHROPIC_API_KEY) {
      throw new ConfigError('ANTHROPIC_API_KEY', `required because ${variable} uses anthropic`);
    }
  }

  const mode = e.SLACK_BOT_TOKEN ? (e.SLACK_APP_TOKEN ? 'socket' : 'http') : 'none';
  if (mode === 'http' && !e.SLACK_SIGNING_SECRET) {
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
  ].filter((s): s is string => typeof s === 'string' && s.length >= 4);

  const config: Config = {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      appToken: e.SLACK_APP_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      apiUrl: withTrailingSlash(e.SLACK_API_URL),
      mode,
    },
    port: e.PORT,
    openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
    models: { planner, executor, evaluator, 'planner-fallback': fallback },
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
      approvalRemindMin: e.TANDEM_APPROVAL_REMIND_MIN,
      approvalExpireMin: e.TANDEM_APPROVAL_EXPIRE_MIN,
      escalationRepingMin: e.TANDEM_ESCALATION_REPING_MIN,
    },
    httpAllow: e.TANDEM_HTTP_ALLOW.map((h) => h.toLowerCase()),
    autoRunReadOnly: e.TANDEM_AUTO_RUN_READ_ONLY,
    mcpConfigPath: e.TANDEM_MCP_CONFIG,
    runbooksDir: e.TANDEM_RUNBOOKS_DIR,
    boardStyle: e.TANDEM_BOARD_STYLE,
    logLevel: e.LOG_LEVEL,
    secrets,
  };
  return deepFreeze(config);
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
