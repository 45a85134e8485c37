import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Decision 047: what a decision returns (`Decided<R>`, `Effect[]`, ports/effects.ts) is what should happen next,
 * and the wiring performs it. Called as a bare statement (awaited or not, or `void`), its effects would be lost without
 * a word, and tsc says nothing: this rule refuses such a call. Use the value, or hand it to `performNext`. It reads types,
 * so it runs on a program of src/agent alone (tsconfig.agent-lint.json: about 2 s of CPU more than the untyped lint).
 */
const effectsAreUsed = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { dropped: 'This call returns {{what}}: what should happen next would be lost. Return it, or perform it (performNext).' },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services.program.getTypeChecker();
    const named = (type, names) => names.includes(type.aliasSymbol?.name) || names.includes(type.getSymbol()?.name);
    const effects = (type) =>
      named(type, ['Decided', 'Answered', 'Effect']) ||
      (named(type, ['Array', 'ReadonlyArray']) && checker.getTypeArguments(type).some((element) => named(element, ['Effect'])));
    const carries = (type) => {
      const awaited = checker.getAwaitedType(type) ?? type;
      if (effects(awaited)) return awaited;
      return awaited.isUnion() ? awaited.types.find(effects) : undefined;
    };
    return {
      ExpressionStatement(node) {
        // `void` too: effects are never dropped on purpose.
        const unwrap = (expression) =>
          expression.type === 'AwaitExpression' || (expression.type === 'UnaryExpression' && expression.operator === 'void')
            ? unwrap(expression.argument)
            : expression;
        const call = unwrap(node.expression);
        if (call.type !== 'CallExpression') return;
        const found = carries(checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(call)));
        if (found) context.report({ node, messageId: 'dropped', data: { what: checker.typeToString(found) } });
      },
    };
  },
};

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
    // Typed, for the rule above: only where effects are returned and performed (the agent imports nothing outside it).
    files: ['src/agent/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.agent-lint.json', tsconfigRootDir: import.meta.dirname } },
    plugins: { tandem: { rules: { 'effects-are-used': effectsAreUsed } } },
    rules: { 'tandem/effects-are-used': 'error' },
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
