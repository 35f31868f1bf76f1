import { createHash } from 'node:crypto';
import { assertKeyOrigin, ProviderError, quote, requestIds, requestJson, type HttpOptions } from './http.js';
import { chatBody, chatOutput, OPENAI_BASE_URL, v1Base } from './openai.js';
import type { GenerateOptions, ModelProvider, ProviderOutput, ProviderPrompt } from './types.js';

export interface OpenAiBatchOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseUrl?: string;
  /** Between polls of a batch's status (default 30 s). */
  readonly pollMs?: number;
  /** Batches this run submitted before (its manifest keeps them): their results are used, not asked for again. */
  readonly batches?: readonly string[];
  /** A batch was submitted: the run records its id, so a restarted run polls it rather than paying twice. */
  readonly onBatch?: (batchId: string) => void;
  /** How long the requests of a run are gathered before they go as one batch (default 200 ms after the last). */
  readonly gatherMs?: number;
  /** The cap on a batch's result file (default BATCH_FILE_CAP_BYTES); one answer's cap is maxAnswerBytes. */
  readonly maxFileBytes?: number;
}

/** A result file holds every output of a batch: 50,000 answers of a few kB each fit. */
export const BATCH_FILE_CAP_BYTES = 256 * 1024 * 1024;

interface Pending {
  readonly id: string;
  readonly body: Record<string, unknown>;
  resolve(output: ProviderOutput): void;
  reject(error: unknown): void;
}

interface BatchStatus {
  readonly id: string;
  readonly status: string;
  readonly output_file_id?: string | null;
  readonly error_file_id?: string | null;
  readonly errors?: { readonly data?: readonly { readonly message?: string }[] } | null;
}

interface BatchLine {
  readonly custom_id?: string;
  readonly response?: { readonly status_code?: number; readonly request_id?: string; readonly body?: unknown } | null;
  readonly error?: { readonly message?: string } | null;
}

const DONE = new Set(['completed', 'failed', 'expired', 'cancelled']);

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))), { once: true });
  });

/**
 * OpenAI's Batch API as a provider: a run's requests are gathered into one JSONL file, uploaded
 * (POST /v1/files, purpose batch), submitted (POST /v1/batches, 24 h window, half the price),
 * polled, and each output taken from the result file by its custom_id — a hash of the request,
 * so a restarted run finds its results in the batches its manifest names and submits only what
 * none of them answered. A cancel of the run cancels its pending batches at OpenAI (POST
 * /v1/batches/{id}/cancel; what finished before is still read by a resume); a run that is only
 * interrupted (the workbench stopped) leaves them running, and its resume reads their results.
 */
export function openAiBatch(options: OpenAiBatchOptions): ModelProvider {
  const base = v1Base(options.baseUrl ?? OPENAI_BASE_URL);
  assertKeyOrigin(base, 'OpenAI', 'api.openai.com');
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const pollMs = options.pollMs ?? 30_000;
  const gatherMs = options.gatherMs ?? 200;
  let pending: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let runSignal: AbortSignal = new AbortController().signal;
  /** Results of the earlier batches, by custom_id: loaded once, before the first new batch. */
  let earlier: Promise<Map<string, BatchLine>> | undefined;
  /** Batches this run waits on that have not ended: a cancel of the run cancels them at OpenAI. */
  const open = new Set<string>();

  /** Per custom_id, what its result lines said that the output should carry (a second line for it). */
  const notes = new Map<string, string>();
  const results = async (batchId: string, signal: AbortSignal): Promise<{ status: BatchStatus; lines: Map<string, BatchLine> }> => {
    let status: BatchStatus;
    open.add(batchId);
    for (;;) {
      status = (await requestJson(`${base}/batches/${encodeURIComponent(batchId)}`, { method: 'GET', headers }, signal, options)).body as BatchStatus;
      if (DONE.has(status.status)) break;
      await sleep(pollMs, signal);
    }
    open.delete(batchId);
    const lines = new Map<string, BatchLine>();
    const repeated = new Map<string, number>();
    for (const file of [status.output_file_id, status.error_file_id]) {
      if (!file) continue;
      const text = (await requestJson(`${base}/files/${encodeURIComponent(file)}/content`, { method: 'GET', headers, expect: 'text' }, signal, { ...options, maxAnswerBytes: options.maxFileBytes ?? BATCH_FILE_CAP_BYTES })).body as string;
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const parsed = JSON.parse(line) as BatchLine;
        if (!parsed.custom_id) continue;
        // Each request has one result; a second line for it is a fault of the file: the first stands, and the output says so.
        if (lines.has(parsed.custom_id)) repeated.set(parsed.custom_id, (repeated.get(parsed.custom_id) ?? 1) + 1);
        else lines.set(parsed.custom_id, parsed);
      }
    }
    for (const [id, count] of repeated) notes.set(id, `batch ${batchId} has ${count} result lines for this request (custom_id ${id}); the first was kept`);
    return { status, lines };
  };

  const settle = (item: Pending, line: BatchLine | undefined, batchId: string, status?: BatchStatus): void => {
    if (!line) {
      const why = status && status.status !== 'completed' ? `the batch ${batchId} ended ${status.status}${status.errors?.data?.[0]?.message ? `: ${status.errors.data[0].message}` : ''}` : `the batch ${batchId} has no result for this request`;
      return item.reject(new ProviderError(why, undefined, false));
    }
    const code = line.response?.status_code ?? 0;
    if (line.error || code < 200 || code >= 300) {
      const body = line.response?.body as { error?: { message?: string } } | undefined;
      return item.reject(new ProviderError(`batch ${batchId}: ${quote(String(line.error?.message ?? body?.error?.message ?? `status ${code}`), options.apiKey)}`, code || undefined, false));
    }
    try {
      const output = chatOutput(line.response?.body, undefined, `batch ${batchId}`, true);
      const note = notes.get(item.id);
      item.resolve({ ...output, requestIds: requestIds(batchId, line.response?.request_id, ...output.requestIds), ...(note ? { notes: [note] } : {}) });
    } catch (error) {
      item.reject(error);
    }
  };

  const flush = async (): Promise<void> => {
    timer = undefined;
    const items = pending;
    pending = [];
    const signal = runSignal;
    try {
      earlier ??= (async () => {
        const found = new Map<string, BatchLine>();
        for (const id of options.batches ?? []) for (const [k, v] of (await results(id, signal)).lines) found.set(k, v);
        return found;
      })();
      const known = await earlier;
      const fresh = items.filter((item) => {
        const line = known.get(item.id);
        if (line?.response && (line.response.status_code ?? 0) < 300) return settle(item, line, 'earlier'), false;
        return true;
      });
      if (fresh.length === 0) return;
      const jsonl = fresh.map((item) => JSON.stringify({ custom_id: item.id, method: 'POST', url: '/v1/chat/completions', body: item.body })).join('\n') + '\n';
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), 'wapii-batch.jsonl');
      const file = (await requestJson(`${base}/files`, { method: 'POST', headers, body: form }, signal, options)).body as { id?: string };
      if (!file.id) throw new ProviderError('the file upload answered without an id', undefined, false);
      const batch = (await requestJson(`${base}/batches`, { method: 'POST', headers, body: { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { source: 'wapii-workbench' } } }, signal, options)).body as { id?: string };
      if (!batch.id) throw new ProviderError('the batch was created without an id', undefined, false);
      options.onBatch?.(batch.id);
      const { status, lines } = await results(batch.id, signal);
      for (const item of fresh) settle(item, lines.get(item.id), batch.id, status);
    } catch (error) {
      for (const item of items) item.reject(error);
    }
  };

  return {
    name: 'openai',
    model: options.model,
    capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: false, batch: true, listsModels: true, jsonSchema: true },
    // Every output of the run is asked at once: the batch holds them all.
    concurrency: 50_000,
    describe: { provider: 'openai', baseUrl: new URL(base).origin, api: 'batches (chat/completions)' },
    generate(prompt: ProviderPrompt, generateOptions: GenerateOptions, signal: AbortSignal): Promise<ProviderOutput> {
      runSignal = signal;
      const body = chatBody(options.model, prompt, generateOptions, 'max_completion_tokens');
      const id = `wapii-${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32)}`;
      return new Promise<ProviderOutput>((resolve, reject) => {
        pending.push({ id, body, resolve, reject });
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void flush(), gatherMs);
      });
    },
    async cancel(signal: AbortSignal): Promise<readonly string[]> {
      const done: string[] = [];
      const failed: string[] = [];
      for (const id of [...open]) {
        try {
          await requestJson(`${base}/batches/${encodeURIComponent(id)}/cancel`, { method: 'POST', headers, body: {} }, signal, { ...options, retry: { retries: 2, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
          open.delete(id);
          done.push(id);
        } catch (error) {
          failed.push(`${id} (${error instanceof Error ? error.message : String(error)})`);
        }
      }
      if (failed.length > 0) throw new ProviderError(`could not cancel batch ${failed.join(', ')} at OpenAI: cancel it there, or it runs on and is billed`, undefined, false);
      return done.map((id) => `batch ${id} cancelled at OpenAI`);
    },
    check: async (signal) => {
      await requestJson(`${base}/models/${encodeURIComponent(options.model)}`, { method: 'GET', headers }, signal, { ...options, retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
    },
  };
}
