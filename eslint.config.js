// Lint rules, including the layering of style.md: data flows one way, and each outside
// dependency has one home (only main/app imports electron, only main/store better-sqlite3).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (files, paths, patterns = []) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] },
});
const only = (name, home) => ({ name, message: `only ${home} may import ${name}` });
const STAGES = ['main/openapi/**', 'main/dataset/**', 'main/store/**'];
const UPWARD = [{ group: ['**/service/**', '**/cli/**', '**/app/**', '**/api/http*', '**/api/ipc*'], message: 'stages and the store do not import the layers above them' }];

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'scratch/**', 'test-results/**', 'datasets/demo-runs/**' /* model output kept as written, mistakes included */] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  restrict(['main/**/*.ts', 'preload/**', 'renderer/**', 'bin/**', 'test/**', 'bench/**'], [only('electron', 'main/app and preload'), only('better-sqlite3', 'main/store')]),
  { files: ['main/app/**', 'preload/**'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [only('better-sqlite3', 'main/store')] }] } },
  { files: ['main/store/**'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [only('electron', 'main/app')], patterns: UPWARD }] } },
  restrict(STAGES.filter((s) => s !== 'main/store/**'), [only('electron', 'main/app'), only('better-sqlite3', 'main/store')], UPWARD),
  {
    files: ['renderer/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [only('electron', 'main/app'), only('better-sqlite3', 'main/store')],
          patterns: [
            {
              regex: '^(\\.\\./)+main/(?!api/(contract|schemas|constants|fetchClient)\\.js$)',
              message: 'the renderer reaches the engine only through the contract (main/api)',
            },
            { regex: '^(\\.\\./)+main/api/(contract|schemas)\\.js$', allowTypeImports: true, message: 'import only types from the contract (import type)' },
          ],
        },
      ],
    },
  },
);
