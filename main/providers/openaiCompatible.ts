import pLimit from 'p-limit';
import { assertKeyOrigin, requestIds, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import { chatBody, chatOutput, v1Base } from './openai.js';
import type { GenerateOptions, ModelProvider, ProviderOutput, ProviderPrompt } from './types.js';

/** Which server software answers: it decides the field a grammar travels in. */
export type ServerEngine = 'llama-server' | 'vllm' | 'unknown';

export interface OpenAiCompatibleOptions extends HttpOptions {
  /** The server's base URL (`http://host:8080` or `.../v1`). */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a Bearer token, only to this base URL's origin (https, or a server on this machine). */
  readonly apiKey?: string;
  readonly concurrency?: number;
  /** Absent: asked of the server the first time a grammar is sent (llama-server answers GET /props, vLLM GET /version). */
  readonly engine?: ServerEngine;
}

interface CompletionAnswer {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly { readonly text?: string; readonly finish_reason?: string | null }[];
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown };
}

/**
 * The grammar in the engine's own field: llama-server reads `grammar` (GBNF); vLLM reads
 * `structured_outputs.grammar` (0.10.2 on; older versions `guided_grammar`). Where the engine is
 * not known, every field goes: each engine ignores the fields it does not know.
 */
export function grammarFields(engine: ServerEngine, grammar: string): Record<string, unknown> {
  if (engine === 'llama-server') return { grammar };
  if (engine === 'vllm') return { structured_outputs: { grammar }, guided_grammar: grammar };
  return { grammar, structured_outputs: { grammar }, guided_grammar: grammar };
}

/**
 * Any OpenAI-compatible server (llama-server, vLLM, OpenRouter, a proxy with auth): completion
 * prompts to /v1/completions, chat prompts to /v1/chat/completions, a GBNF grammar in the
 * engine's field when constrained.
 */
export function openAiCompatible(options: OpenAiCompatibleOptions): ModelProvider {
  const base = v1Base(options.baseUrl);
  const origin = new URL(base).origin;
  if (options.apiKey !== undefined) assertKeyOrigin(base, 'OpenAI-compatible server');
  const headers: Record<string, string> = options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {};
  const concurrency = options.concurrency ?? 4;
  const limit = pLimit(concurrency);
  let engine: Promise<ServerEngine> | undefined = options.engine ? Promise.resolve(options.engine) : undefined;
  const quick = { ...options, timeoutMs: Math.min(options.timeoutMs ?? 5000, 5000), retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 } };
  const detect = (signal: AbortSignal): Promise<ServerEngine> =>
    (engine ??= (async () => {
      try {
        await requestJson(`${origin}/props`, { method: 'GET', headers }, signal, quick);
        return 'llama-server';
      } catch {
        try {
          const v = await requestJson(`${origin}/version`, { method: 'GET', headers }, signal, quick);
          return v.body && typeof v.body === 'object' && 'version' in v.body ? 'vllm' : 'unknown';
        } catch {
          return 'unknown';
        }
      }
    })());
  const complete = async (prompt: Extract<ProviderPrompt, { kind: 'completion' }>, o: GenerateOptions, signal: AbortSignal): Promise<ProviderOutput> => {
    const body = {
      model: options.model,
      prompt: prompt.text,
      max_tokens: o.maxTokens,
      temperature: o.temperature,
      ...(o.topP !== undefined ? { top_p: o.topP } : {}),
      ...(o.topK !== undefined ? { top_k: o.topK } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.stop?.length ? { stop: o.stop } : {}),
      ...(o.grammar ? grammarFields(await detect(signal), o.grammar) : {}),
    };
    const answer = await requestJson(`${base}/completions`, { method: 'POST', headers, body }, signal, options);
    const parsed = answer.body as CompletionAnswer;
    const choice = Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
    if (!choice || typeof choice.text !== 'string') throw new UnusableAnswerError(`${base}/completions answered without choices[0].text`);
    return {
      text: choice.text,
      finish: choice.finish_reason === 'length' ? 'length' : choice.finish_reason === 'stop' || choice.finish_reason == null ? 'stop' : 'other',
      usage: usageFrom(`${base}/completions`, { input: [['usage.prompt_tokens', parsed.usage?.prompt_tokens]], output: [['usage.completion_tokens', parsed.usage?.completion_tokens]] }, 'none'),
      requestIds: requestIds(typeof parsed.id === 'string' ? parsed.id : undefined, answer.headers.get('x-request-id')),
      ...(typeof parsed.model === 'string' && parsed.model ? { modelVersion: parsed.model } : {}),
      server: origin,
    };
  };
  return {
    name: 'openai-compatible',
    model: options.model,
    capabilities: { logits: false, constraints: 'grammar', completion: true, chat: true, prefill: false, batch: false, listsModels: true, jsonSchema: true },
    concurrency,
    describe: { provider: 'openai-compatible', baseUrl: origin, key: options.apiKey !== undefined },
    generate: (prompt, o, signal) =>
      limit(async () => {
        if (prompt.kind === 'completion') return complete(prompt, o, signal);
        const body = { ...chatBody(options.model, prompt, o, 'max_tokens'), ...(o.grammar ? grammarFields(await detect(signal), o.grammar) : {}) };
        const answer = await requestJson(`${base}/chat/completions`, { method: 'POST', headers, body }, signal, options);
        return { ...chatOutput(answer.body, answer.headers, `${base}/chat/completions`, false), server: origin };
      }),
    check: async (signal) => {
      // /v1/models is the one path every OpenAI-compatible server answers (llama-server, vLLM, OpenRouter).
      await requestJson(`${base}/models`, { method: 'GET', headers }, signal, { ...options, timeoutMs: Math.min(options.timeoutMs ?? 10_000, 10_000), retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
    },
    listModels: async (signal) => {
      const answer = await requestJson(`${base}/models`, { method: 'GET', headers }, signal, options);
      return ((answer.body as { data?: { id?: string }[] }).data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').sort();
    },
  };
}
