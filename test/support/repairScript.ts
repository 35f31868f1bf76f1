import { oracleProgram } from '../../main/prompt/index.js';
import type { HostedReply, HostedRequest } from './hostedStandIn.js';

/** The user's turns of a chat request as the stand-in received it: the prompt, then each follow-up. */
export const userTurns = (r: HostedRequest): string[] => ((r.body['messages'] ?? []) as { role: string; content: string }[]).filter((m) => m.role === 'user').map((m) => m.content);

/**
 * A scripted chat model that repairs only when told what is wrong, for the demo's warehouses task
 * ("List the first 10 warehouses in the EU region."): first a path the spec lacks; once the
 * follow-up says the path matches no endpoint, the right path with a query argument the endpoint
 * does not define; once told that argument is not defined, the ground truth — two repair rounds to
 * `correct`. The wrong attempts send no headers, so the expected Authorization value reaches the
 * model only if the workbench told it. Any other task gets the first, wrong program.
 */
export function repairScript(sample: Parameters<typeof oracleProgram>[0]): (r: HostedRequest) => HostedReply {
  const { starter, completion } = oracleProgram(sample, 'full');
  const right = completion.replace(/\n\n[\s\S]*$/, '');
  const bare = right.replace(/\s*headers: \{[^}]*\},?/, '');
  const extraArgument = bare.replace('params: {', "params: {\n    sort: 'name',");
  const unknownPath = bare.replace('/v2/warehouses', '/v2/storage-sites');
  if (bare === right || extraArgument === bare || unknownPath === bare) throw new Error(`the script does not fit the oracle's call: ${right}`);
  const reply = (call: string): HostedReply => ({ text: `\`\`\`javascript\n${starter}${call}\n\`\`\`` });
  return (r) => {
    const turns = userTurns(r);
    const last = turns.at(-1) ?? '';
    if (!turns[0]?.includes(sample.task)) return reply(unknownPath);
    if (last.includes('matches no endpoint')) return reply(extraArgument);
    if (/`sort` is not defined for GET \/warehouses/.test(last)) return reply(right);
    return reply(unknownPath);
  };
}
