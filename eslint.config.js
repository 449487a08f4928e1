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
  common: ['base'],
  flow: ['base', 'common'],
  runtimes: ['base', 'common', 'flow'],
  store: ['base', 'common'],
  otel: ['base', 'common', 'store'],
  engine: ['base', 'common', 'flow', 'runtimes'],
  workspace: ['base', 'common', 'flow', 'runtimes', 'engine'],
  service: ['base', 'common', 'flow', 'runtimes', 'store', 'otel', 'engine', 'workspace'],
  cli: ['base', 'common', 'flow', 'runtimes', 'otel', 'engine', 'workspace', 'service'],
};
/**
 * Single files a layer may take from a layer above it. The store judges whether a host's process
 * still lives (host liveness), so it reads /proc through process-identity.ts; it never signals a
 * process: ending a dead host's agents is given to it by whoever opens it to run flows.
 */
const CORE_FILE_EXCEPTIONS = {
  store: ['runtimes/process/process-identity.ts'],
};
const coreZones = Object.entries(CORE_LAYERS).map(([layer, below]) => {
  const files = CORE_FILE_EXCEPTIONS[layer] ?? [];
  const allowed = below.length === 0 ? 'it imports no other core folder' : `imports only core/{${below.join(',')}}`;
  return {
    target: `./core/${layer}`,
    from: './core',
    except: [`./${layer}`, ...below.map((name) => `./${name}`), ...files.map((file) => `./${file}`)],
    message:
      below.length === 0
        ? `core/${layer} is the base layer: ${allowed}`
        : `core/${layer} ${allowed}${files.length === 0 ? '' : ` and ${files.map((file) => `core/${file}`).join(', ')}`}`,
  };
});
// A shell's tests may drive the renderer's client against it (the conformance suites).
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/*.suite.ts'];
// Test doubles and fixtures: never compiled into dist/ (tsconfig.build.json excludes the same).
const TEST_SUPPORT = ['**/testing/**', '**/testing.ts', 'core/engine/model/**'];

/** Names no file of a folder may import (and, in `extra`, single names of a module). */
const forbid = (patterns, message, extra = []) => ({
  'no-restricted-imports': ['error', { patterns: [...patterns.map((group) => ({ group: [group], message })), ...extra] }],
});
/**
 * A shell runs flows, so it opens its store with process control (core/service/history/open.ts):
 * a bare `openStore` would interrupt a dead host's runs without ending the agents it left.
 */
const HOST_STORE_ONLY = [
  {
    group: ['**/core/store/index.js', '**/core/store/open.js'],
    importNames: ['openStore', 'openSqliteStore'],
    message: "a shell opens its store with openHostStore (core/service/history/open.ts), which ends a dead host's leftover agents",
  },
];
/**
 * The CLI holds a history as the service's CommandHistory (core/service/history/command-history.ts)
 * and reads it as the window does, through the service: never the store, nor what opens or takes it
 * (docs/architecture.md "One read path"). core/testing/layer-rules.test.ts also refuses the store's
 * type however a CLI file reaches it.
 */
const CLI_NO_STORE = [
  {
    group: ['**/service/**'],
    importNames: ['openHostStore', 'createHivewatchService', 'HivewatchServiceOptions', 'HivewatchStore'],
    message: 'the CLI holds a CommandHistory (core/service/history/command-history.ts), never the store or what opens or takes it',
  },
];
const UI_PACKAGES = ['react', 'react-dom', 'react/*', 'react-dom/*'];
const CORE_FORBIDDEN = ['electron', 'electron/*', ...UI_PACKAGES, '**/renderer/**', '**/electron/**', '**/server/**', '**/shell-common/**'];
const CORE_FORBIDDEN_MESSAGE = 'core/ is the runtime core: it never imports electron, React, renderer/, electron/, server/ or shell-common/';
/**
 * What the shared pure layer may not touch: it runs in Node (the store, the service) and in the
 * window's sandbox alike, so neither runtime's globals, and no I/O of any kind.
 */
const NOT_PURE_GLOBALS = [
  'process',
  'Buffer',
  'require',
  '__dirname',
  '__filename',
  'global',
  'setImmediate',
  'window',
  'document',
  'navigator',
  'location',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
].map((name) => ({ name, message: "core/common/ is pure: it runs in Node and in the window alike, so it uses neither runtime's globals and does no I/O" }));

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
    rules: forbid(CORE_FORBIDDEN, CORE_FORBIDDEN_MESSAGE),
  },
  {
    files: ['core/cli/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: forbid(CORE_FORBIDDEN, CORE_FORBIDDEN_MESSAGE, CLI_NO_STORE),
  },
  {
    // The shared pure layer (core/common/README.md): what the store and the window both apply.
    // Relative imports only (core/base below it, by the zones), so no package, no Node module;
    // tsconfig.common.json compiles it, and what it reaches of core/base, without Node or DOM types.
    files: ['core/common/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: CORE_FORBIDDEN, message: CORE_FORBIDDEN_MESSAGE },
            { regex: '^(?!\\.{1,2}/)', message: 'core/common/ is pure: it imports only core/common/ and core/base/ (no package, no Node module)' },
          ],
        },
      ],
      'import-x/no-nodejs-modules': 'error',
      'no-restricted-globals': ['error', ...NOT_PURE_GLOBALS],
    },
  },
  {
    files: ['core/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: coreZones }] },
  },
  {
    // Process control is not the store's: it never signals a process (recovery is given
    // `endLeftovers` by whoever opens the store to run flows: core/service/history/open.ts).
    files: ['core/store/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'kill',
          message: 'core/store signals no process: process control is core/runtimes/process/, given to recovery as endLeftovers',
        },
      ],
    },
  },
  {
    // One closed error hierarchy (docs/decisions/0002-retries-and-the-error-taxonomy.md): a product
    // error is a HivewatchError with a code of the taxonomy, converted at each edge (HTTP, IPC, the
    // CLI's exit codes). Only the root itself, and the TypeError of a broken call to it, extend the
    // built-in errors.
    files: ['**/*.{ts,tsx,cts,mts}'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT, 'core/base/errors/hivewatch-error.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['ClassDeclaration', 'ClassExpression'].map((node) => ({
          selector: `${node}[superClass.name=/^(Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError)$/]`,
          message: 'an error class extends HivewatchError (core/base/errors) with a code of the taxonomy, not a built-in Error',
        })),
      ],
    },
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
    rules: forbid(
      [...UI_PACKAGES, '**/server/**', '**/renderer/**'],
      'electron/ is one shell: it imports core/ and shell-common/, never server/ or renderer/',
      HOST_STORE_ONLY,
    ),
  },
  {
    files: ['server/**'],
    ignores: TEST_FILES,
    rules: forbid(
      ['electron', 'electron/*', ...UI_PACKAGES, '**/electron/**', '**/renderer/**'],
      'server/ is one shell: it imports core/ and shell-common/, never electron/ or renderer/',
      HOST_STORE_ONLY,
    ),
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
              regex: '(^|/)core/(?!common/|service/api(\\.js)?$)',
              message: 'renderer/ imports core/common/ (the shared pure layer) and the types of core/service/api.ts, nothing else of core/',
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
    // A test of a renderer rule against what the real store says (failure-headline.store.test.ts):
    // only such tests may import core/ beyond core/common and api.ts.
    files: ['renderer/**/*.store.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'renderer/ runs in the browser sandbox' }] }],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)(shell-common|server|electron)/', message: 'renderer/ talks to the shells through its API client only' }] },
      ],
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
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', setInterval: 'readonly' },
    },
  },
);
