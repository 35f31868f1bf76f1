import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/paths.js';

/**
 * The layering eslint.config.js enforces (issue 35 item 6), on one-line files placed where a
 * violation would sit: each outside dependency has one home, and an engine stage imports no other.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('layers held by lint', () => {
  it.each([
    ['node-llama-cpp outside the local model', 'main/scoring/x.ts', "import { getLlama as x } from 'node-llama-cpp';", /only the local model/],
    ['isolated-vm outside the sandbox', 'main/runner/x.ts', "import x from 'isolated-vm';", /only the sandbox \(main\/execution\)/],
    ["a provider's SDK outside its provider", 'main/synthesis/openai.ts', "import { GoogleGenAI as x } from '@google/genai';", /only its provider/],
    ['node-llama-cpp in a remote provider', 'main/providers/openai.ts', "import { getLlama as x } from 'node-llama-cpp';", /only the local model/],
    ['the provider wing importing a stage', 'main/providers/x.ts', "import { loadRuntime as x } from '../generation/index.js';", /the provider wing imports no stage/],
    ['a stage importing another stage', 'main/scoring/x.ts', "import { createExecutor as x } from '../execution/index.js';", /an engine stage imports no other stage/],
    ['constraints importing generation', 'main/constraints/x.ts', "import { loadRuntime as x } from '../generation/index.js';", /an engine stage imports no other stage/],
    ['the spec model importing a stage', 'main/openapi/x.ts', "import { checkRequest as x } from '../dataset/index.js';", /the spec model and GGUF import no stage/],
    ['a stage importing the service', 'main/prompt/x.ts', "import { openWorkbench as x } from '../service/index.js';", /an engine stage imports no other stage/],
    ['generation importing the runner', 'main/generation/x.ts', "import { executeRun as x } from '../runner/index.js';", /generation imports no stage but/],
    ['the store importing the CLI', 'main/store/x.ts', "import { runCli as x } from '../cli/program.js';", /the store does not import the layers above it/],
  ])('refuses %s', async (_name, file, code, message) => {
    const messages = await restricted(file, code);
    expect(messages.some((m) => message.test(m)), messages.join('\n')).toBe(true);
  });

  it.each([
    ['isolated-vm in the sandbox', 'main/execution/x.ts', "import x from 'isolated-vm';"],
    ['node-llama-cpp in the local model', 'main/generation/x.ts', "import { getLlama as x } from 'node-llama-cpp';"],
    ['node-llama-cpp in the local provider', 'main/providers/local.ts', "import { getLlama as x } from 'node-llama-cpp';"],
    ['a stage using the provider wing', 'main/synthesis/x.ts', "import { PROVIDERS as x } from '../providers/registry.js';"],
    ['the spec model in a stage', 'main/scoring/x.ts', "import { findEndpoint as x } from '../openapi/index.js';"],
    ['the runner composing stages', 'main/runner/x.ts', "import { createExecutor as x } from '../execution/index.js';"],
    ['a test beside its code driving other stages', 'main/scoring/x.test.ts', "import { createExecutor as x } from '../execution/index.js';"],
  ])('allows %s', async (_name, file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
