// Mutation testing of the modules that decide what may run (decision 027): each module is mutated and
// run against its own unit tests only, one module at a time, so a survivor points at a missing test of
// that module and not at a slow end-to-end test that happens to cover it. Not part of `npm test`.
//
//   npm run test:mutation                               every module below
//   npm run test:mutation -- --module approval-policy   one (repeat --module for more)
//   npm run test:mutation -- --module policy-adapter --file cedar-engine.ts   one file of a module
//
// Reports: reports/mutation/<module>/index.html and mutation.json (git-ignored). Exits 1 when a module
// scores under 90 % on covered code or leaves code no test runs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'reports', 'mutation');

/**
 * Each module with the test files that are its own. Tests are chosen through vitest's `include`, not
 * Stryker's `testFiles` (with that, Stryker 9.6 reports mutants of module-level code as survived even
 * when a test kills them: stryker-js #6144). `<name>*.test.ts` takes in later files such as
 * `<name>-mutants.test.ts`.
 */
const MODULES = {
  // The approval policy is split by concern (approval-policy.ts re-exports the four files); its tests import it whole.
  'approval-policy': {
    files: [
      'src/agent/decisions/approval-need.ts',
      'src/agent/decisions/run-action-checks.ts',
      'src/agent/decisions/approval-click.ts',
      'src/agent/decisions/version-permission.ts',
      'src/agent/decisions/settings-denial.ts',
    ],
    tests: ['test/agent/approval-policy*.test.ts'],
  },
  // The digest check's own tests (digest-binding) are the ones that change stored content under an approval.
  'version-approval': {
    file: 'src/agent/decisions/version-approval.ts',
    tests: ['test/agent/version-approval*.test.ts', 'test/agent/digest-binding*.test.ts'],
  },
  'step-targets': { file: 'src/agent/model/step-targets.ts', tests: ['test/agent/step-targets*.test.ts'] },
  'executor-decisions': { file: 'src/agent/execution/execution-rules.ts', tests: ['test/agent/executor-decisions*.test.ts'] },
  'plan-validation': { file: 'src/agent/model/plan/plan-validation.ts', tests: ['test/agent/plan-validation*.test.ts'] },
  references: { file: 'src/agent/model/references.ts', tests: ['test/agent/references*.test.ts'] },
  'repository-allow-list': { file: 'src/agent/model/repository-allow-list.ts', tests: ['test/agent/repository-allow-list*.test.ts'] },
  'plan-digest': { file: 'src/agent/model/plan/plan-digest.ts', tests: ['test/agent/plan-digest*.test.ts'] },
  // Its own unit tests only: policy-decisions goes through the agent and a database for each mutant, and
  // policy-approval-rows holds what it checked of this module as rows.
  'policy-approval': { file: 'src/agent/decisions/policy-approval.ts', tests: ['test/agent/policy-approval*.test.ts'] },
  // search-qualifiers.ts only adapts search-query.ts, which reads the whole query (decision 026).
  'search-qualifiers': {
    files: ['src/integrations/github/search-qualifiers.ts', 'src/integrations/github/search-query.ts'],
    tests: ['test/**/search-qualifiers*.test.ts', 'test/tools/search-query*.test.ts', 'test/agent/repository-allow-list*.test.ts'],
  },
  // The wait model's transitions: which run status may move to which.
  'run-moves': { file: 'src/agent/model/run-moves.ts', tests: ['test/agent/run-moves*.test.ts'] },
  // A wait's lifecycle state (owed, delivered, answered, expired, cancelled) as derived from what is stored.
  'wait-state': { file: 'src/agent/waits/wait-state.ts', tests: ['test/agent/wait-states*.test.ts'] },
  // The policy adapter every decision goes through: Cedar, the request it is asked, and the built-in policy
  // compiled from the settings. (policy-files, policy-cases and schema are the CLI's and start-up's.)
  'policy-adapter': {
    files: [
      'src/policy/cedar-engine.ts',
      'src/policy/cedar-request.ts',
      'src/policy/parse-policy-set.ts',
      'src/policy/builtin-policy.ts',
      'src/policy/policy-in-force.ts',
      'src/policy/source-position.ts',
    ],
    // Not builtin-equivalence: its 120 generated settings take over 30 s instrumented on a loaded machine, for every
    // mutant of the built-in policy; builtin-policy-words holds its rules and the allow-list's edges as tables.
    tests: ['test/policy/policy-adapter*.test.ts', 'test/policy/builtin-policy*.test.ts'],
  },
};

/** A module's files: `file` for one, `files` for a module split by concern. Paths are repository-relative. */
const filesOf = (module) => module.files ?? [module.file];
/** The files of a module this run mutates: all of them, or those `--file` names. */
const mutatedFilesOf = (module) => filesOf(module).filter((file) => onlyFiles.length === 0 || onlyFiles.some((end) => file.endsWith(end)));

/** The least score on covered code a module must keep (issue 37). */
const BREAK_AT = 90;

/** `--file <name>`: of a module's files, only those whose path ends with one of these (a part of a slow module). */
const onlyFiles = [];

function chosenModules(argv) {
  const names = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--module') names.push(argv[++i]);
    else if (argv[i]?.startsWith('--module=')) names.push(argv[i].slice('--module='.length));
    else if (argv[i] === '--file') onlyFiles.push(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; use --module <name> (one of: ${Object.keys(MODULES).join(', ')})`);
  }
  for (const name of names) {
    if (!MODULES[name]) throw new Error(`no module ${name}; one of: ${Object.keys(MODULES).join(', ')}`);
  }
  return names.length ? names : Object.keys(MODULES);
}

/** The type check sees only what tsconfig.mutation.json lists (the modules and what they import), not the whole project. */
function checkTypeScope() {
  const listed = JSON.parse(readFileSync(path.join(root, 'tsconfig.mutation.json'), 'utf8')).files ?? [];
  const missing = Object.values(MODULES)
    .flatMap(filesOf)
    .filter((file) => !listed.includes(file));
  if (missing.length) throw new Error(`tsconfig.mutation.json must list ${missing.join(', ')} in "files"`);
}

/**
 * A vitest config of the module's own tests. Written outside the sandbox Stryker copies the project
 * into, and read by absolute path: vitest's root stays the sandbox (its working directory), so the
 * tests import the mutated sources.
 */
function writeVitestConfig(name, tests) {
  const dir = path.join(out, name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'vitest.config.mjs');
  const config = { test: { include: tests, isolate: true, testTimeout: 30_000 } };
  writeFileSync(file, `// Written by scripts/mutation.mjs.\nexport default ${JSON.stringify(config, null, 2)};\n`);
  return file;
}

function optionsFor(name) {
  const module = MODULES[name];
  return {
    mutate: mutatedFilesOf(module),
    testRunner: 'vitest',
    vitest: { configFile: writeVitestConfig(name, module.tests), related: false },
    checkers: ['typescript'],
    tsconfigFile: 'tsconfig.mutation.json',
    coverageAnalysis: 'perTest',
    // Two cores shared with other work: one test process at a time.
    concurrency: 1,
    timeoutMS: 10_000,
    ignorePatterns: ['/reports', '/.data', '/dist', '/coverage', '/docs', '!/docs/policy', '/eval', '/bench', '/dist.building-*'],
    reporters: ['html', 'json', 'clear-text', 'progress'],
    htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
    jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
    incremental: false,
    plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker'],
  };
}

/** Killed, timed out (an endless loop is caught) and type errors count as detected; Stryker's own rule. */
function scoreOf(results) {
  const count = (statuses) => results.filter((result) => statuses.includes(result.status)).length;
  const detected = count(['Killed', 'Timeout']);
  const survived = count(['Survived']);
  const uncovered = count(['NoCoverage']);
  const covered = detected + survived;
  return {
    mutants: results.length,
    detected,
    survived,
    uncovered,
    invalid: count(['CompileError', 'RuntimeError']),
    total: covered + uncovered ? (100 * detected) / (covered + uncovered) : 100,
    covered: covered ? (100 * detected) / covered : 100,
  };
}

checkTypeScope();
const rows = [];
for (const name of chosenModules(process.argv.slice(2))) {
  const files = mutatedFilesOf(MODULES[name]);
  console.log(`\n=== mutating ${files.join(', ')}`);
  const results = await new Stryker(optionsFor(name)).runMutationTest();
  rows.push({ name, ...scoreOf(results) });
  // A module of several files: a row per file too (indented), so each file's score can be read on its own.
  if (files.length > 1)
    for (const file of files)
      rows.push({ name: `  ${path.basename(file)}`, part: true, ...scoreOf(results.filter((result) => path.normalize(result.fileName).endsWith(file))) });
}

console.log('\nmodule                        score  covered  survived  no-coverage');
for (const row of rows) {
  console.log(
    `${row.name.padEnd(28)} ${row.total.toFixed(1).padStart(6)} ${row.covered.toFixed(1).padStart(8)} ${String(row.survived).padStart(9)} ${String(row.uncovered).padStart(12)}`,
  );
}
console.log(`\nreports: ${path.relative(process.cwd(), out)}/<module>/index.html`);
const failing = rows.filter((row) => !row.part && (row.covered < BREAK_AT || row.uncovered > 0));
if (failing.length) {
  console.error(`under ${BREAK_AT} % on covered code, or with code no test runs: ${failing.map((row) => row.name).join(', ')}`);
  process.exitCode = 1;
}
