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
    ['generation importing the runner', 'main/generation/x.ts', "import { executeRun as x } from '../runner/index.js';", /an engine stage imports no other stage/],
    // Issue 35 item 6: the runner hands generation its constraints (a Constrainer) and the prompt its messages.
    ['generation importing the constraints', 'main/generation/x.ts', "import { TokenConstraint as x } from '../constraints/index.js';", /an engine stage imports no other stage/],
    ['generation importing the prompt', 'main/generation/x.ts', "import { chatMessages as x } from '../prompt/index.js';", /an engine stage imports no other stage/],
    ['the store importing the CLI', 'main/store/x.ts', "import { runCli as x } from '../cli/program.js';", /the store does not import the layers above it/],
    ['the CLI importing the runner', 'main/cli/x.ts', "import { reportOf as x } from '../runner/index.js';", /the CLI calls the service/],
    ['the CLI importing the store', 'main/cli/x.ts', "import { Store as x } from '../store/index.js';", /the CLI calls the service/],
    ['the CLI importing a stage', 'main/cli/x.ts', "import { measureRecall as x } from '../retrieval/index.js';", /the CLI calls the service/],
    ['the CLI loading a spec itself', 'main/cli/x.ts', "import { loadSpec as x } from '../openapi/index.js';", /the CLI calls the service/],
  ])('refuses %s', async (_name, file, code, message) => {
    const messages = await restricted(file, code);
    expect(messages.some((m) => message.test(m)), messages.join('\n')).toBe(true);
  });

  it.each([
    ['isolated-vm in the sandbox', 'main/execution/x.ts', "import x from 'isolated-vm';"],
    ['node-llama-cpp in the local model', 'main/generation/x.ts', "import { getLlama as x } from 'node-llama-cpp';"],
    ['generation reading the prompt from the contract and the vocabulary from GGUF', 'main/generation/x.ts', "import { REPLY_FENCE as x } from '../api/prompt.js';\nimport { decodeTokens } from '../gguf/index.js';\nexport const y = decodeTokens;"],
    ['node-llama-cpp in the local provider', 'main/providers/local.ts', "import { getLlama as x } from 'node-llama-cpp';"],
    ['a stage using the provider wing', 'main/synthesis/x.ts', "import { PROVIDERS as x } from '../providers/registry.js';"],
    ['the spec model in a stage', 'main/scoring/x.ts', "import { findEndpoint as x } from '../openapi/index.js';"],
    ['the runner composing stages', 'main/runner/x.ts', "import { createExecutor as x } from '../execution/index.js';"],
    ['a test beside its code driving other stages', 'main/scoring/x.test.ts', "import { createExecutor as x } from '../execution/index.js';"],
    ['the CLI calling the service', 'main/cli/x.ts', "import { localClient as x } from '../service/index.js';"],
    ['the CLI bundling a spec file at the edge', 'main/cli/x.ts', "import { bundleSpec as x } from '../openapi/bundle.js';"],
    ["the CLI's tests driving the store", 'main/cli/x.test.ts', "import { Store as x } from '../store/index.js';"],
  ])('allows %s', async (_name, file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
