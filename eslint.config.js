import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'drizzle', '.data', 'coverage', 'docs', 'dist', 'dist.building-*', 'reports', '.stryker-tmp'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through loadConfig(env); only src/config.ts and the CLI entry touch process.env.',
        },
      ],
    },
  },
  {
    // Plain JavaScript run by Node (the entry point and the build): Node's globals.
    files: ['bin/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // Issue 18: a function over 100 lines does more than one job; split it (a pure decision and a thin loop, or a factory per concern).
    files: ['src/**'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['src/config/**', 'src/cli/**', 'bin/**', 'test/**', 'bench/**', 'vitest.config.ts', 'drizzle.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['src/agent/**'],
    rules: {
      // The agent keeps people as data and knows no chat syntax: the surface writes the mention.
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through loadConfig(env); only src/config.ts and the CLI entry touch process.env.',
        },
        { selector: 'Literal[value=/<@/]', message: 'Name a person as data (words`…${person(id)}…`); the surface writes the mention.' },
        { selector: 'TemplateElement[value.raw=/<@/]', message: 'Name a person as data (words`…${person(id)}…`); the surface writes the mention.' },
        {
          selector: 'Literal[value=/\\b(TANDEM|PLANNER|OPENAI|ANTHROPIC|GITHUB|SLACK)_[A-Z_]+/]',
          message: "Name a setting as data (words`…${setting('max-steps')}…`); the surface and the CLI name its variable.",
        },
        {
          selector: 'TemplateElement[value.raw=/\\b(TANDEM|PLANNER|OPENAI|ANTHROPIC|GITHUB|SLACK)_[A-Z_]+/]',
          message: "Name a setting as data (words`…${setting('max-steps')}…`); the surface and the CLI name its variable.",
        },
      ],
      'no-restricted-imports': [
        'error',
        { patterns: ['@slack/*', 'octokit', '@octokit/*', '../bot/*', '../integrations/*', '../store/*', 'openai', '@anthropic-ai/*'] },
      ],
    },
  },
);
