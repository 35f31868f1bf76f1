// Lint rules, including the layering of style.md: data flows one way, each outside dependency has
// one home, and an engine stage imports no other stage (the runner composes them).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const only = (name, home) => ({ name, message: `only ${home} may import ${name}` });
/** Each outside dependency and the one place that may import it. */
const HOMES = {
  electron: 'main/app and preload',
  'better-sqlite3': 'main/store',
  'node-llama-cpp': 'the local model: its decoder (main/generation) and its provider (main/providers/local.ts)',
  'isolated-vm': 'the sandbox (main/execution)',
  // A provider's SDK, were one added, is imported by its provider file alone (main/providers/<name>.ts).
  openai: 'its provider (main/providers)',
  '@anthropic-ai/sdk': 'its provider (main/providers)',
  '@google/genai': 'its provider (main/providers)',
};
/** The homes' restrictions, less those a zone is the home of. */
const libraries = (...allowed) => Object.entries(HOMES).filter(([name]) => !allowed.includes(name)).map(([name, home]) => only(name, home));

const UPPER = ['service', 'cli', 'app'];
const ENGINE = ['dataset', 'prompt', 'retrieval', 'constraints', 'generation', 'execution', 'scoring', 'runner', 'store', 'synthesis'];
/** Import patterns of the given folders of main/ (a file's own folder never appears in its relative imports). */
const folders = (names, message) => [{ group: names.map((n) => `**/${n}/**`), message }, { group: ['**/api/http*', '**/api/ipc*'], message: 'the engine does not import the transports' }];
const layer = (files, allowed, patterns = []) => ({ files, rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: libraries(...allowed), patterns }] } });
const CLI = 'the CLI calls the service (main/api, main/service), not the runner, the store or a stage';
/** An engine stage reads the domain's types (api/), the spec model (openapi/) and GGUF (gguf/), never another stage. */
const STAGE = (stage) => folders([...ENGINE.filter((s) => s !== stage), ...UPPER], `an engine stage imports no other stage (the runner composes them): main/${stage}`);

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'scratch/**', 'test-results/**', 'datasets/demo-runs/**', 'datasets/demo-multistep-runs/**' /* model output kept as written, mistakes included */] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // Tests and benchmarks may drive any library, but never the Electron shell's or the store's directly.
  { files: ['test/**', 'bench/**', 'bin/**'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [only('electron', HOMES.electron), only('better-sqlite3', HOMES['better-sqlite3'])] }] } },
  layer(['main/**/*.ts'], []),
  layer(['main/app/**', 'preload/**'], ['electron']),
  layer(['main/store/**'], ['better-sqlite3'], folders(UPPER, 'the store does not import the layers above it')),
  // The CLI parses, calls the service (the contract's methods, in this process) and prints: no runner,
  // store or stage of its own. It reads files at the edge (a spec's $refs bundled by openapi/bundle.ts)
  // and takes its choices from the provider registry; the spec model and the providers are the service's.
  layer(['main/cli/**'], [], [
    { group: ENGINE.map((n) => `**/${n}/**`), message: CLI },
    { regex: '^(\\.\\./)+(openapi/(?!bundle\\.js$)|providers/(?!registry\\.js$)|gguf/)', message: CLI },
  ]),
  // The foundations: the spec model and GGUF import no stage.
  layer(['main/openapi/**', 'main/gguf/**'], [], folders([...ENGINE, ...UPPER], 'the spec model and GGUF import no stage')),
  ...['dataset', 'prompt', 'retrieval', 'constraints', 'scoring'].map((stage) => layer([`main/${stage}/**`], [], STAGE(stage))),
  layer(['main/execution/**'], ['isolated-vm'], STAGE('execution')),
  // generation reads the prompt from the contract (main/api/prompt.ts) and is handed its constraints
  // by the runner (a Constrainer: main/runner/constrainer.ts), so it too imports no other stage.
  layer(['main/generation/**'], ['node-llama-cpp'], STAGE('generation')),
  layer(['main/synthesis/**'], [], folders(UPPER, 'synthesis does not import the layers above it')),
  // The provider wing: every caller of a model (runs, synthesis, New run's list) goes through it; it imports no stage.
  layer(['main/providers/**'], ['openai', '@anthropic-ai/sdk', '@google/genai'], folders([...ENGINE, ...UPPER], 'the provider wing imports no stage and no layer above it')),
  layer(['main/providers/local.ts'], ['node-llama-cpp'], folders([...ENGINE, ...UPPER], 'the provider wing imports no stage and no layer above it')),
  // A test beside its code drives it through its real parts, other stages included.
  { files: ['main/**/*.test.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [only('electron', HOMES.electron), only('better-sqlite3', HOMES['better-sqlite3'])] }] } },
  {
    files: ['renderer/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: libraries(),
          patterns: [
            {
              regex: '^(\\.\\./)+main/(?!api/(contract|schemas|constants|fetchClient|stepEdits)\\.js$)',
              message: 'the renderer reaches the engine only through the contract (main/api)',
            },
            { regex: '^(\\.\\./)+main/api/(contract|schemas)\\.js$', allowTypeImports: true, message: 'import only types from the contract (import type)' },
          ],
        },
      ],
    },
  },
);
