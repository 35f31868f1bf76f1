import { createHash } from 'node:crypto';
import { fail, ok, type Result } from '../api/result.js';
import type { Endpoint } from '../openapi/index.js';
import type { Chain } from './chains.js';
import { estimateTokens, specExcerpt, type SynthesisPrompt } from './prompt.js';

/**
 * The instructions for drafting multi-step samples from chains (scoring.md §7), after the
 * single-request ones (prompt.ts): the same criteria for tasks and configs, and what a plan
 * adds — the looked-up value is never stated, and each response is what the API would answer.
 */
export const CHAIN_INSTRUCTIONS = `You write multi-step samples for WAPIIBench, a benchmark of code that calls web APIs. A multi-step sample is a task a developer could give in plain English that takes two requests in order: the first looks something up, the second acts on a value that only the first request's response holds. You write each request as an Axios request config, and the response the API answers to it.

Each sample follows a chain you are given: the first request goes to the chain's first operation, the second to its second operation, and the chain says which field of the first response the second request sends, and where.

Rules for every sample:
1. The task is unambiguous and solvable with the specification alone. It names every value the requests need except the looked-up value, which the task must not state: it says how to find it instead (by a name, a title, an e-mail address, "the first", "the newest").
2. Each config is a request to its operation: "url" is a server URL of the specification followed by the path with each path parameter filled in; "method" is the method in lower case. Query parameters go in "params", never in the url; a body goes in "data" as a JSON object, with "Content-Type": "application/json" in "headers" unless the specification demands another media type.
3. The first response is what the API would answer the first request: "status" a success status the operation declares, "data" valid against the operation's response schema for that status, with the looked-up value at the field the chain names, in the item the task describes (put that item first where the field is in a list).
4. The second request sends exactly that value at the parameter the chain names; its response is what the API would answer it, valid against its response schema.
5. Every argument of each config is reflected in the task (but the looked-up value), and every detail of the task is reflected in the configs. Values are realistic and valid against their schemas; every required parameter and body property is set; nothing the specification does not define is set.
6. Credentials: where an operation needs them, put them where the security scheme says, with a placeholder for the secret, e.g. "Authorization": "Bearer <token>" or an API key "<api_key>". Never a real-looking secret; the task does not mention credentials.
7. Samples of the same chain differ in their values and in how the task is phrased.

Answer with JSON only, in this shape: {"samples": [{"chain": 1, "task": "...", "steps": [{"config": {"url": "...", "method": "...", "headers": {...}, "params": {...}, "data": {...}}, "response": {"status": 200, "data": {...}}}, {"config": {...}, "response": {"status": 200, "data": {...}}}]}]}, "chain" being the chain's number in the list. Leave out "headers", "params" or "data" of a config when the request has none.`;

const operation = (e: Endpoint): string => `${e.method.toUpperCase()} ${e.path}${e.operationId || e.summary ? ` (${[e.operationId, e.summary].filter(Boolean).join(': ')})` : ''}`;

const WHERE: Record<Chain['parameter']['in'], string> = { path: 'path parameter', query: 'query parameter', body: 'body property' };

/** `1. GET /conversations.list (…) → POST /chat.postMessage (…): the second request's body property `channel` is …`. */
export function chainLine(chain: Chain, n: number): string {
  const segments = chain.field.split('/').slice(1);
  const name = segments.at(-1) ?? '';
  const inList = segments.includes('*');
  const parameter = chain.parameter.in === 'path' ? `{${chain.parameter.name}}` : `\`${chain.parameter.name}\``;
  const field = inList ? `the \`${name}\` of an item of a list` : `the \`${name}\``;
  return `${n}. ${operation(chain.producer)} → ${operation(chain.consumer)}: the second request's ${WHERE[chain.parameter.in]} ${parameter} is ${field} in the first response (status ${chain.status}), at JSON pointer ${chain.field}${inList ? ' (* is a list index)' : ''}`;
}

/**
 * The prompt for some chains of one API: the instructions, the spec (whole when it fits the
 * model's context with room for the answer, else the excerpt of the chains' operations), the
 * numbered chains.
 */
export function chainPrompt(input: {
  readonly api: string;
  readonly specText: string;
  readonly chains: readonly Chain[];
  readonly samplesPerChain: number;
  readonly contextTokens: number;
  readonly maxOutputTokens: number;
}): Result<SynthesisPrompt> {
  const n = input.samplesPerChain;
  const count = input.chains.length;
  const ask = `Write ${n === 1 ? 'one sample' : `${n} samples`} for each of these ${count} chain${count === 1 ? '' : 's'} of the API "${input.api}", and for no other:\n${input.chains.map((c, i) => chainLine(c, i + 1)).join('\n')}`;
  const budget = input.contextTokens - input.maxOutputTokens - estimateTokens(CHAIN_INSTRUCTIONS) - estimateTokens(ask) - 64;
  const endpoints = [...new Set(input.chains.flatMap((c) => [c.producer, c.consumer]))];
  let scope: SynthesisPrompt['specScope'] = 'whole';
  let spec = input.specText;
  if (estimateTokens(spec) > budget) {
    scope = 'excerpt';
    spec = specExcerpt(input.specText, endpoints);
    if (estimateTokens(spec) > budget) {
      return fail('bad_input', `the spec excerpt for ${endpoints.map((e) => `${e.method.toUpperCase()} ${e.path}`).join(', ')} takes about ${estimateTokens(spec)} tokens, more than the ${Math.max(0, budget)} the model's context leaves; use a model with a larger context or fewer chains per request`);
    }
  }
  const user = `OpenAPI specification${scope === 'excerpt' ? ' (the part these operations use)' : ''}:\n\n${spec.trimEnd()}\n\n${ask}`;
  const hash = createHash('sha256').update(CHAIN_INSTRUCTIONS).update('\0').update(user).digest('hex');
  return ok({ system: CHAIN_INSTRUCTIONS, user, hash, specScope: scope });
}
