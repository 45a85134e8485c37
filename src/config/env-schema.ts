/**
 * The environment Tandem reads, as one zod schema: every variable, its form and its default. The loader
 * (config.ts) turns what it parses into the Config the rest of the code uses.
 */
import { z } from 'zod';
import { databaseUrlProblem } from './database-url.ts';
import { isWellFormedAllowEntry } from './http-allow-entry.ts';

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

/** The other roles may name only a model: it is the planner's provider's (config.ts). */
const roleModelRef = z
  .string()
  .regex(/^\S+$/, "expected provider:model or a model of the planner's provider, e.g. anthropic:claude-haiku-4-5 or gpt-4o-mini")
  .optional();

/*
 * Numbers are read as plain decimal digits. z.coerce.number would also take 0x1F90, 1e3, 0b1 or Infinity,
 * which an operator did not mean as a port or a budget: such a value is refused rather than quietly read
 * as some other number.
 */
const DECIMAL_WHOLE = /^\d+$/;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A number the pattern allows, from `min` to `max`; `expected` is the one line any bad value gets. */
const decimalInRange = (pattern: RegExp, min: number, max: number, expected: string) =>
  z.string().trim().regex(pattern, expected).transform(Number).pipe(z.number().min(min, expected).max(max, expected));

const wholeNumber = (min: number, max: number, expected: string) => decimalInRange(DECIMAL_WHOLE, min, max, expected);

const positiveInt = (fallback: number) => wholeNumber(1, Number.MAX_SAFE_INTEGER, 'expected a whole number of 1 or more, in decimal digits').default(fallback);

/**
 * The run and step budgets become setTimeout delays in milliseconds. Node holds at most 2^31-1 ms
 * there and fires a longer delay after 1 ms, so every step would "time out" at once: refuse more.
 */
const MAX_TIMER_S = Math.floor(0x7fffffff / 1000);

const timeoutSeconds = (fallback: number) =>
  wholeNumber(1, MAX_TIMER_S, `expected whole seconds from 1 to ${MAX_TIMER_S} (about 24 days, the longest timer Node.js can set)`).default(fallback);

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

const otlpProtocol = z.enum(['http/protobuf', 'http/json', 'grpc'], { error: 'expected http/protobuf, http/json or grpc' });

/** GitHub's spelling (src/agent/model/repository-name.ts): an entry GitHub would refuse (`acme/..`) could never match. */
const REPO_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?:(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}|\*)$/;

/** A GitHub App's identity and the repository allow-list (github-settings.ts checks how they combine). */
export const GithubAppEnv = z.object({
  GITHUB_APP_ID: z.string().regex(/^\d+$/, "expected the App's numeric ID from its settings page (not the client ID)").optional(),
  GITHUB_APP_PRIVATE_KEY: z.string().optional(),
  GITHUB_APP_PRIVATE_KEY_FILE: z.string().optional(),
  TANDEM_REPOS: csv.pipe(z.array(z.string().regex(REPO_PATTERN, 'expected owner/name or owner/* entries, comma-separated'))),
});

export const EnvSchema = z.object({
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
  PORT: wholeNumber(0, 65535, 'expected a port number from 0 to 65535, in decimal digits').default(3000),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: httpUrl.optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: httpUrl.optional(),
  PLANNER_MODEL: modelRef,
  EXECUTOR_MODEL: roleModelRef,
  EVALUATOR_MODEL: roleModelRef,
  PLANNER_FALLBACK_MODEL: roleModelRef,
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  ...GithubAppEnv.shape,
  DATABASE_URL: z
    .string()
    .superRefine((url, ctx) => {
      const problem = databaseUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  TANDEM_APPROVERS: csv.pipe(z.array(z.string().regex(/^[US][A-Z0-9]+$/, 'expected Slack user (U…) or user-group (S…) IDs, comma-separated'))),
  // Slack bot ids (B…) or app ids (A…) whose messages may start, answer or cancel runs; other apps are ignored.
  TANDEM_ALLOW_BOTS: csv.pipe(z.array(z.string().regex(/^[AB][A-Z0-9]+$/, 'expected Slack bot (B…) or app (A…) IDs, comma-separated'))),
  TANDEM_ESCALATE_TO: z
    .string()
    .regex(/^[US][A-Z0-9]+$/, 'expected a Slack user (U…) or user-group (S…) ID')
    .optional(),
  TANDEM_CONFIDENCE_THRESHOLD: decimalInRange(DECIMAL, 0, 1, 'expected a number from 0 to 1, e.g. 0.6').default(0.6),
  TANDEM_MAX_STEPS: positiveInt(20),
  TANDEM_MAX_REPLANS: wholeNumber(0, Number.MAX_SAFE_INTEGER, 'expected a whole number of 0 or more, in decimal digits').default(2),
  TANDEM_RUN_TIMEOUT_S: timeoutSeconds(3600),
  TANDEM_STEP_TIMEOUT_S: timeoutSeconds(600),
  TANDEM_MAX_TOKENS: positiveInt(200_000),
  TANDEM_REMIND_AFTER_S: positiveInt(1800),
  TANDEM_APPROVAL_TTL_S: positiveInt(86_400),
  TANDEM_HTTP_ALLOW: csv.pipe(
    z.array(
      z.string().refine(isWellFormedAllowEntry, {
        // Naming the entry finds it in a long list; a pasted URL's user:password@ is left out of it.
        error: (issue) =>
          `expected hosts like status.example.com, host:port or host:*, comma-separated, not URLs; ${JSON.stringify(String(issue.input).replace(/[^/@]*@/, '…@'))} is not one`,
      }),
    ),
  ),
  TANDEM_AUTO_RUN_READ_ONLY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  // Issue 32 (decision 028): who may do what, as a Cedar policy; schedules bounded per channel.
  TANDEM_POLICY: z.string().min(1, 'expected the path of a .cedar file or a folder of them').optional(),
  TANDEM_MAX_SCHEDULES: positiveInt(20),
  TANDEM_MIN_SCHEDULE_INTERVAL_S: positiveInt(300),
  TANDEM_ATTRIBUTION: z
    .enum(['on', 'off'], { error: 'expected on or off' })
    .default('on')
    .transform((v) => v === 'on'),
  TANDEM_MCP_CONFIG: z.string().min(1).optional(),
  TANDEM_MODEL_PRICES: z.string().optional(),
  TANDEM_RUNBOOKS_DIR: z.string().min(1).default('./runbooks'),
  TANDEM_SHOW_COST: z
    .enum(['true', 'false', '1', '0'], { error: 'expected true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  TANDEM_BOARD_STYLE: z.enum(['auto', 'plan', 'sections'], { error: 'expected auto, plan or sections' }).default('auto'),
  // Read here only to decide whether tracing is on; the OpenTelemetry SDK reads these and the other OTEL_* itself.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  // The wire format of the export: protobuf or JSON over HTTP, or gRPC. The traces' own setting wins.
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  // The OpenTelemetry specification's boolean: only "true" (any case) is true, every other value is false, never an error.
  OTEL_SDK_DISABLED: z.string().trim().toLowerCase().optional(),
  OTEL_TRACES_EXPORTER: z.string().trim().toLowerCase().optional(),
  TANDEM_TRACE_CONTENT: z.enum(['on', 'off'], { error: 'expected on or off' }).default('off'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof EnvSchema>;

export const PricesSchema = z.record(z.string(), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }));
