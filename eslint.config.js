// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The import matrix (docs/architecture.md): which folder may import which. Inside core/ a folder
 * imports only the layers below it; the order is the table's. Tests and test support may reach
 * further (an engine test of a runtime runs a FlowRun), so the matrix holds for what ships.
 */
const CORE_LAYERS = {
  base: [],
  flow: ['base'],
  runtimes: ['base', 'flow'],
  store: ['base', 'runtimes'],
  otel: ['base', 'runtimes', 'store'],
  engine: ['base', 'flow', 'runtimes'],
  workspace: ['base', 'flow', 'runtimes', 'engine'],
  service: ['base', 'flow', 'runtimes', 'store', 'otel', 'engine', 'workspace'],
  cli: ['base', 'flow', 'runtimes', 'store', 'otel', 'engine', 'workspace', 'service'],
};
const coreZones = Object.entries(CORE_LAYERS).map(([layer, below]) => ({
  target: `./core/${layer}`,
  from: './core',
  except: [`./${layer}`, ...below.map((name) => `./${name}`)],
  message: below.length === 0 ? `core/${layer} is the base layer: it imports no other core folder` : `core/${layer} imports only core/{${below.join(',')}}`,
}));
// A shell's tests may drive the renderer's client against it (the conformance suites).
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/*.suite.ts'];
// Test doubles and fixtures: never compiled into dist/ (tsconfig.build.json excludes the same).
const TEST_SUPPORT = ['**/testing/**', '**/testing.ts', 'core/engine/model/**'];

/** Names no file of a folder may import. */
const forbid = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});
const UI_PACKAGES = ['react', 'react-dom', 'react/*', 'react-dom/*'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-dev/', 'renderer-dist/', 'artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { maxDepth: Infinity }],
    },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
  },
  {
    files: ['core/**'],
    rules: forbid(
      ['electron', 'electron/*', ...UI_PACKAGES, '**/renderer/**', '**/electron/**', '**/server/**', '**/shell-common/**'],
      'core/ is the runtime core: it never imports electron, React, renderer/, electron/, server/ or shell-common/',
    ),
  },
  {
    files: ['core/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: coreZones }] },
  },
  {
    files: ['shell-common/**'],
    rules: forbid(
      ['electron', 'electron/*', ...UI_PACKAGES, '**/renderer/**', '**/electron/**', '**/server/**', '**/core/**'],
      'shell-common/ is what both shells serve: plain Node, it imports neither shell, the renderer nor core/',
    ),
  },
  {
    files: ['electron/**'],
    ignores: TEST_FILES,
    rules: forbid([...UI_PACKAGES, '**/server/**', '**/renderer/**'], 'electron/ is one shell: it imports core/ and shell-common/, never server/ or renderer/'),
  },
  {
    files: ['server/**'],
    ignores: TEST_FILES,
    rules: forbid(['electron', 'electron/*', ...UI_PACKAGES, '**/electron/**', '**/renderer/**'], 'server/ is one shell: it imports core/ and shell-common/, never electron/ or renderer/'),
  },
  {
    files: ['renderer/**'],
    rules: {
      // The typescript-eslint form: `allowTypeImports` lets `import type` of the API through and
      // fails a value import of the same file.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // A regex, not gitignore globs: a negated glob cannot re-include a file whose parent
              // folder an earlier glob excluded.
              regex: '(^|/)core/(?!service/api(\\.js)?$)',
              message: 'renderer/ sees only the types of core/service/api.ts',
            },
            {
              regex: '(^|/)core/service/api(\\.js)?$',
              allowTypeImports: true,
              message: 'renderer/ imports core/service/api.ts with `import type` only: no value crosses into the sandbox',
            },
            { regex: '(^|/)(shell-common|server|electron)/', message: 'renderer/ talks to the shells through its API client only' },
            { group: ['electron', 'better-sqlite3', 'node:*'], message: 'renderer/ runs in the browser sandbox' },
          ],
        },
      ],
    },
  },
  {
    // A test of the renderer's client-side twin of a store query checks it against the real
    // store (runs-query.store.test.ts): only such tests may import core/ beyond api.ts.
    files: ['renderer/**/*.store.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'renderer/ runs in the browser sandbox' }] }],
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)(shell-common|server|electron)/', message: 'renderer/ talks to the shells through its API client only' }] }],
    },
  },
  {
    // Small files and functions: no file over 400 lines, no function over 100,
    // counting every line (blank lines and comments too). Tests and suites keep the file bound;
    // their describe/it callbacks are lists of cases, so the function bound is not applied there.
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/*.suite.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', setInterval: 'readonly' } },
  },
);
