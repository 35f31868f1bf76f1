import { ConstraintMatcher, declaredNames, exportGbnf } from '../constraints/index.js';
import type { CompletionPrompt } from '../prompt/index.js';
import type { ApiSpec } from '../openapi/index.js';
import type { GenerationBackend, SamplingOptions, SlotGenerator } from './backend.js';
import type { Generation, Intervention } from './generate.js';

export interface RemoteOptions extends SamplingOptions {
  /** The server's base URL (`http://host:8080` or `.../v1`). */
  readonly url: string;
  readonly model: string;
  readonly parallel: number;
  /** Constrain by each API's exported GBNF, sent as the request's `grammar` (llama-server; vLLM reads `guided_grammar`). */
  readonly constrainBy?: ReadonlyMap<string, ApiSpec>;
  readonly fetch?: typeof fetch;
}

interface CompletionResponse {
  readonly choices?: readonly { readonly text?: string; readonly finish_reason?: string | null }[];
  readonly usage?: { readonly completion_tokens?: number };
  readonly error?: { readonly message?: string } | string;
}

/**
 * An OpenAI-compatible completions server (llama-server, vLLM) as a backend: one POST
 * /v1/completions per sample, the prompt as text, the spec's grammar attached when constrained.
 * The server decodes; the per-token record of interventions stays on its side.
 */
export function remoteBackend(options: RemoteOptions): GenerationBackend {
  const base = options.url.replace(/\/+$/, '');
  const endpoint = /\/v1$/.test(base) ? `${base}/completions` : `${base}/v1/completions`;
  const grammars = new Map<string, string>();
  const grammarFor = (api: string): string | undefined => {
    const spec = options.constrainBy?.get(api);
    if (!spec) return undefined;
    let g = grammars.get(api);
    if (!g) grammars.set(api, (g = exportGbnf(spec)));
    return g;
  };
  const doFetch = options.fetch ?? fetch;
  const slot: SlotGenerator = {
    async generate({ prompt, api, seed }): Promise<Generation> {
      const grammar = grammarFor(api);
      if (options.constrainBy && !grammar) throw new Error(`no spec to constrain ${api} by`);
      const body = {
        model: options.model,
        prompt: prompt.text,
        max_tokens: options.maxTokens,
        temperature: options.temperature,
        top_p: options.topP,
        top_k: options.topK,
        seed,
        stop: ['\n\n'],
        ...(grammar ? { grammar, guided_grammar: grammar } : {}),
      };
      const started = performance.now();
      let response: Response;
      try {
        response = await doFetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      } catch (error) {
        throw new Error(`cannot reach ${endpoint}: ${(error as Error).message}`);
      }
      const text = await response.text();
      let parsed: CompletionResponse;
      try {
        parsed = JSON.parse(text) as CompletionResponse;
      } catch {
        throw new Error(`${endpoint} answered ${response.status} with something that is not JSON: ${text.slice(0, 120)}`);
      }
      if (!response.ok || parsed.error) {
        const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? text.slice(0, 200));
        throw new Error(`${endpoint} answered ${response.status}: ${message}`);
      }
      const choice = parsed.choices?.[0];
      if (!choice || typeof choice.text !== 'string') throw new Error(`${endpoint} answered without choices[0].text`);
      const tokens = parsed.usage?.completion_tokens ?? 0;
      const spec = options.constrainBy?.get(api);
      const closed = spec ? closeInvocation(spec, prompt, choice.text, tokens) : undefined;
      return {
        text: choice.text + (closed?.text ?? ''),
        tokens,
        stop: choice.finish_reason === 'length' ? 'limit' : choice.finish_reason === 'stop' ? 'snippet' : 'eos',
        interventions: closed ? [closed] : [],
        promptTokens: 0,
        reusedPromptTokens: 0,
        promptMs: 0,
        generateMs: performance.now() - started,
        constraintMs: 0,
        batched: 1, // the server batches as it sees fit and does not say
      };
    },
  };
  return {
    manifest: { engine: 'openai-compatible', url: endpoint, model: options.model, grammar: options.constrainBy ? 'gbnf' : 'none' },
    slots: options.parallel,
    slot: () => slot,
    async [Symbol.asyncDispose]() {},
  };
}

/**
 * A constrained output that the token limit (or the server's blank-line stop) cut inside the
 * invocation is closed by the shortest legal completion, as the local backend does at its limit;
 * the grammar kept every token legal, so the code then runs. Undefined where nothing is open, or
 * where the text left the workbench's language (the GBNF is a relaxation of it: the score says).
 */
function closeInvocation(spec: ApiSpec, prompt: CompletionPrompt, text: string, step: number): Extract<Intervention, { kind: 'closed' }> | undefined {
  const matcher = ConstraintMatcher.create(spec, declaredNames(prompt.starter));
  if (!matcher.feed(prompt.text).ok || !matcher.feed(text).ok || matcher.isComplete()) return undefined;
  const closing = matcher.completion();
  return closing ? { kind: 'closed', step, text: closing } : undefined;
}
