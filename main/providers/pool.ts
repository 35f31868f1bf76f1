import { FatalProviderError, ProviderError, UnusableAnswerError } from './http.js';
import type { ModelProvider, ProviderOutput } from './types.js';

interface Member {
  readonly provider: ModelProvider;
  readonly origin: string;
  inFlight: number;
  /** Until when the server is left out after a failure (ms since epoch); 0: healthy. */
  downUntil: number;
  failures: number;
}

/** A failed server is left out this long before it is tried again. */
const COOLDOWN_MS = 10_000;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Several OpenAI-compatible servers (llama-server or vLLM, on one or many machines) as one
 * provider: each request goes to the healthy server with the most free slots (a slot per request
 * it takes at once), so a faster server takes more of the run. A server that fails — refused
 * connection, reset, timeout, 5xx, or an answer that cannot be used — is left out for a while and the request goes to another;
 * a sample fails only when every server has failed it. Each output names its server.
 */
export function poolProvider(members: readonly ModelProvider[], options: { cooldownMs?: number; now?: () => number } = {}): ModelProvider {
  if (members.length === 0) throw new Error('bug: a pool needs servers');
  const cooldown = options.cooldownMs ?? COOLDOWN_MS;
  const now = options.now ?? Date.now;
  const pool: Member[] = members.map((provider) => ({ provider, origin: String(provider.describe['baseUrl'] ?? provider.name), inFlight: 0, downUntil: 0, failures: 0 }));
  const first = members[0]!;
  const pick = (tried: ReadonlySet<Member>): Member | undefined => {
    const t = now();
    const candidates = pool.filter((m) => !tried.has(m) && m.downUntil <= t);
    // Most free slots first; a full pool still queues on the least loaded server (its own p-limit holds the request).
    return candidates.sort((a, b) => b.provider.concurrency - b.inFlight - (a.provider.concurrency - a.inFlight))[0];
  };
  return {
    name: 'openai-compatible',
    model: first.model,
    capabilities: first.capabilities,
    concurrency: members.reduce((sum, m) => sum + m.concurrency, 0),
    describe: { provider: 'openai-compatible', pool: pool.map((m) => m.origin) },
    async generate(prompt, generateOptions, signal): Promise<ProviderOutput> {
      const tried = new Set<Member>();
      let last: unknown;
      // Each server once; then, if all of them failed, once more on whichever has come back.
      for (let round = 0; round < 2; round++) {
        for (;;) {
          const member = pick(tried);
          if (!member) break;
          tried.add(member);
          member.inFlight++;
          try {
            const output = await member.provider.generate(prompt, generateOptions, signal);
            member.failures = 0;
            return { ...output, server: member.origin };
          } catch (error) {
            // A request the server refused (400) fails on every server; an answer this server could not give usably (not JSON, no text, lying usage, too large, trickling) is asked of another.
            if (signal.aborted || error instanceof FatalProviderError || (error instanceof ProviderError && !error.retryable && !(error instanceof UnusableAnswerError))) throw error;
            last = error;
            member.failures++;
            member.downUntil = now() + cooldown;
          } finally {
            member.inFlight--;
          }
        }
        if (round === 0) {
          // Every server failed this request: wait for the first to come back, then try once more.
          const wake = Math.min(...pool.map((m) => m.downUntil)) - now();
          if (wake > 0) await sleep(Math.min(wake, cooldown), signal);
          signal.throwIfAborted();
          tried.clear();
        }
      }
      throw new ProviderError(`every server of the pool failed this sample; the last: ${last instanceof Error ? last.message : String(last)}`, undefined, true);
    },
    async check(signal) {
      const results = await Promise.allSettled(members.map((m) => m.check(signal)));
      const failed = results.map((r, i) => (r.status === 'rejected' ? `${pool[i]!.origin}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}` : undefined)).filter((m): m is string => m !== undefined);
      // The run can go on while one server answers; it says which do not.
      if (failed.length === members.length) throw new Error(`no server of the pool answers (${failed.join('; ')})`);
    },
    listModels: async (signal) => (first.listModels ? first.listModels(signal) : []),
  };
}
