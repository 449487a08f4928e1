// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** Layer rules: what each top-level folder may import (DESIGN §1 boundaries). */
const forbid = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'renderer-dist/', 'artifacts/', 'coverage/'] },
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
      ['electron', 'electron/*', 'react', 'react-dom', 'react/*', 'recharts', '**/renderer/**', '**/electron/**', '**/server/**'],
      'core/ is the runtime core: it never imports electron, React, renderer/, electron/ or server/',
    ),
  },
  {
    files: ['renderer/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // A regex, not gitignore globs: a negated glob cannot re-include a file whose parent
              // folder an earlier glob excluded, so `!**/core/service/api.js` never took effect.
              regex: '(^|/)core/(?!service/api(\\.js)?$)',
              message: 'renderer/ sees only the types of core/service/api.ts',
            },
            { group: ['electron', 'better-sqlite3', 'node:*'], message: 'renderer/ runs in the browser sandbox' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', setInterval: 'readonly' } },
  },
);
