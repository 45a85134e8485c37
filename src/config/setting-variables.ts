/**
 * Where each setting an agent message points a person to is set: its environment variable. The agent
 * names settings by role ({ setting: 'approvers' }); the surfaces and the CLI show this name, so a person
 * reads the variable they would change, and the agent never spells one.
 */
export const SETTING_VARIABLES = {
  approvers: 'TANDEM_APPROVERS',
  'max-steps': 'TANDEM_MAX_STEPS',
  'max-replans': 'TANDEM_MAX_REPLANS',
  'max-tokens': 'TANDEM_MAX_TOKENS',
  'run-timeout': 'TANDEM_RUN_TIMEOUT_S',
  'step-timeout': 'TANDEM_STEP_TIMEOUT_S',
  'confidence-threshold': 'TANDEM_CONFIDENCE_THRESHOLD',
  repos: 'TANDEM_REPOS',
  'planner-model': 'PLANNER_MODEL',
  'model-key': 'OPENAI_API_KEY (or ANTHROPIC_API_KEY)',
} as const;

/** Stored words as the agent keeps them: text, people by Slack id, settings by role. */
type StoredWords = string | readonly (string | { user: string } | { setting: keyof typeof SETTING_VARIABLES })[];

/** Stored words (a reason, what happened) for a terminal: a person by their Slack id, a setting by its variable. */
export function terminalWords(text: StoredWords): string {
  if (typeof text === 'string') return text;
  return text.map((part) => (typeof part === 'string' ? part : 'user' in part ? part.user : SETTING_VARIABLES[part.setting])).join('');
}
