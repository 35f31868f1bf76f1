import type { Intervention, RunSampleDetail } from '../api.js';

type Generation = NonNullable<RunSampleDetail['generation']>;
type Replaced = Extract<Intervention, { kind: 'replaced' }>;

/** Whitespace made visible: a space is `·`, a long run of spaces `␣×12`, a newline `↵`, a tab `⇥`. */
const visible = (text: string): string =>
  text
    .replace(/ {4,}/g, (run) => `␣×${run.length}`)
    .replace(/ /g, '·')
    .replace(/\n/g, '↵\n')
    .replace(/\t/g, '⇥');
const prob = (p: number | null): string => (p === null ? 'outside top 64' : `p ${p.toFixed(2)}`);

/**
 * Each generated token; the ones the constraint overruled show the model's pick and its
 * probability → the token taken, and the closing text added at the token limit is marked.
 */
export function TokenTrace({ generation }: { generation: Generation }): React.JSX.Element {
  const replaced = new Map<number, Replaced>();
  for (const i of generation.interventions) if (i.kind === 'replaced') replaced.set(i.step, i);
  const closed = generation.interventions.filter((i) => i.kind === 'closed');
  return (
    <div className="token-trace" data-testid="token-trace">
      <p className="muted">
        {generation.tokens} tokens · stop: {generation.stop} · {replaced.size} overruled by the constraint
        {closed.length > 0 && ' · closed at the token limit'} · {Math.round(generation.generateMs)} ms generating, {Math.round(generation.constraintMs)} ms in the constraint
      </p>
      {generation.trace ? (
        <div className="tokens">
          {generation.trace.map((text, step) => {
            const r = replaced.get(step);
            if (!r)
              return (
                <span key={step} className="tok" title={`step ${step}`}>
                  {visible(text)}
                </span>
              );
            return (
              <span key={step} className="tok overruled" title={`step ${step}: the model picked ${JSON.stringify(r.model.text)} (${prob(r.model.p)}); the constraint chose ${JSON.stringify(r.chosen.text)} (${prob(r.chosen.p)}) via ${r.via === 'top' ? 'the top 64' : 'the full mask'}`}>
                <s className="pick">{visible(r.model.text)}</s>
                <sup>{r.model.p === null ? '' : r.model.p.toFixed(2)}</sup>→{visible(text)}
              </span>
            );
          })}
          {closed.map((c) => (
            <span key={`closed-${c.step}`} className="tok closed" title="added at the token limit to close the call">
              {visible(c.text)}
            </span>
          ))}
        </div>
      ) : (
        <p className="muted">This run kept no per-token trace; the interventions are listed below.</p>
      )}
      {replaced.size > 0 && (
        <ol className="interventions">
          {[...replaced.values()].map((r) => (
            <li key={r.step}>
              step {r.step}: model <code>{JSON.stringify(r.model.text)}</code> ({prob(r.model.p)}) → <code>{JSON.stringify(r.chosen.text)}</code> ({prob(r.chosen.p)}, via {r.via === 'top' ? 'top 64' : 'mask'})
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
