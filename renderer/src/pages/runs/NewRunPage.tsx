import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { CLIENT_PROFILES, clientField, DEFAULT_CLIENT, defaultDatasetId, DEFAULT_PARALLEL, DEFAULT_PARALLEL_GPU, HTTP_CLIENTS, REVIEW_STATES, SAMPLING_DEFAULTS, type HttpClient } from '../../../../main/api/constants.js';
import type { DatasetSummary, ReviewState } from '../../../../main/api/schemas.js';
import type { Output } from '../../../../main/api/contract.js';
import type { Model, StartRunInput } from '../../api.js';
import { getClient } from '../../client.js';
import { Empty, Loading } from '../../components/Empty.js';
import { attempt, messageOf, useNotices } from '../../notices.js';
import { readNewRunSettings, writeNewRunSettings } from './newRunSettings.js';
import { useRuns } from './runsStore.js';

type Setup = 'full' | 'argument';
type Setting = 'unconstrained' | 'constrained' | 'repair';
const GRID: readonly { setup: Setup; setting: Setting; label: string }[] = [
  { setup: 'full', setting: 'unconstrained', label: 'Full completion · unconstrained' },
  { setup: 'full', setting: 'constrained', label: 'Full completion · constrained' },
  { setup: 'argument', setting: 'unconstrained', label: 'Argument completion · unconstrained' },
  { setup: 'argument', setting: 'constrained', label: 'Argument completion · constrained' },
  { setup: 'full', setting: 'repair', label: 'Full completion · repair' },
  { setup: 'argument', setting: 'repair', label: 'Argument completion · repair' },
];
type KeyStatus = Output<'getApiKeyStatus'>[number];
type Provider = Extract<StartRunInput['model'], { provider: unknown }>['provider']['name'];
/** A provider as the service's registry describes it (listProviders); the key comes from the environment or the key store, never from this form. */
type ProviderInfo = Output<'listProviders'>[number];
/** What each HTTP client's radio says beside its name. */
const CLIENT_NOTES: Record<HttpClient, React.ReactNode> = {
  axios: 'Axios (the paper)',
  fetch: (
    <>
      fetch (the starter calls the global <code>fetch</code>; unconstrained or repair)
    </>
  ),
};
const cell = (g: { setup: Setup; setting: Setting }): string => `${g.setup}/${g.setting}`;
/** A preview refused for what this cell asks (bad_input): the other cells may still run. */
const isCellRefusal = (error: unknown): boolean => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'bad_input';
/** The knowledge conditions offered as checkboxes (main/prompt/knowledge.ts); `retrieved:k` has its own k. */
const CONDITIONS: readonly { name: string; label: string }[] = [
  { name: 'none', label: 'none (the paper)' },
  { name: 'endpoint', label: 'endpoint: method + URL template' },
  { name: 'params', label: 'params: parameters, types, required' },
  { name: 'docs', label: 'docs: summary + description' },
  { name: 'example', label: 'example: another sample on the endpoint' },
  { name: 'full', label: 'full: all of these' },
];

/** Queue runs: dataset and subset, model or remote endpoint, the paper's grid, prompt, sampling, resources. */
export function NewRunPage(): React.JSX.Element {
  const client = getClient();
  const navigate = useNavigate();
  // The last form queued or edited (localStorage), so the next run starts from it.
  const [saved] = useState(readNewRunSettings);
  const [datasets, setDatasets] = useState<DatasetSummary[] | undefined>();
  const [models, setModels] = useState<Model[] | undefined>();
  const [datasetId, setDatasetId] = useState<number | undefined>(saved.datasetId);
  const [apis, setApis] = useState<string[]>(saved.apis ?? []);
  const [reviewStates, setReviewStates] = useState<ReviewState[]>(() => (saved.reviewStates ?? []).filter((r): r is ReviewState => (REVIEW_STATES as readonly string[]).includes(r)));
  const [limit, setLimit] = useState(saved.limit ?? '');
  const [sampleSize, setSampleSize] = useState(saved.sampleSize ?? '');
  const [sampleSeed, setSampleSeed] = useState(saved.sampleSeed ?? '1');
  const [stratify, setStratify] = useState<'none' | 'api'>(saved.stratify ?? 'none');
  const [source, setSource] = useState<'local' | 'remote' | 'hosted'>(saved.source ?? 'local');
  const [provider, setProvider] = useState<Provider>(saved.provider ?? 'openai');
  const [providerModel, setProviderModel] = useState(saved.providerModel ?? '');
  const [baseUrl, setBaseUrl] = useState(saved.baseUrl ?? '');
  const [providerModels, setProviderModels] = useState<{ models: string[] } | { error: string } | undefined>();
  const [spendingCap, setSpendingCap] = useState(saved.spendingCap ?? '');
  // OpenAI's Batch API (half the price, results within 24 h); the other providers have none here.
  const [batch, setBatch] = useState(saved.batch ?? false);
  const [keys, setKeys] = useState<KeyStatus[] | undefined>();
  const [repairRounds, setRepairRounds] = useState(saved.repairRounds ?? '2');
  // Not remembered: a fetch run is the exception, and a form that reopens on fetch would surprise.
  const [httpClient, setHttpClient] = useState<HttpClient>(DEFAULT_CLIENT);
  const [modelId, setModelId] = useState<number | undefined>(saved.modelId);
  const [remoteUrl, setRemoteUrl] = useState(saved.remoteUrl ?? 'http://127.0.0.1:8080/v1');
  const [remoteModel, setRemoteModel] = useState(saved.remoteModel ?? 'default');
  const [grid, setGrid] = useState<string[]>(saved.grid ?? ['full/unconstrained']);
  const [conditions, setConditions] = useState<string[]>(saved.conditions ?? ['none']);
  const [retrieved, setRetrieved] = useState(saved.retrieved ?? false);
  const [retrievedK, setRetrievedK] = useState(saved.retrievedK ?? '5');
  const [prompt, setPrompt] = useState<'completion' | 'chat'>(saved.prompt ?? 'completion');
  const [greedy, setGreedy] = useState(saved.greedy ?? true);
  const [temperature, setTemperature] = useState(saved.temperature ?? '0.8');
  const [topK, setTopK] = useState(saved.topK ?? String(SAMPLING_DEFAULTS.topK));
  const [topP, setTopP] = useState(saved.topP ?? String(SAMPLING_DEFAULTS.topP));
  const [seed, setSeed] = useState(saved.seed ?? '1');
  const [n, setN] = useState(saved.n ?? '1');
  const [maxTokens, setMaxTokens] = useState(saved.maxTokens ?? String(SAMPLING_DEFAULTS.maxTokens));
  // Blank: the default for where the model runs (more sequences on a GPU), chosen when the run starts.
  const [parallel, setParallel] = useState(saved.parallel ?? '');
  // Blank: a context that fits the subset's longest prompt and max tokens (the previews say how much), as far as the model's trained context allows.
  const [contextSize, setContextSize] = useState(saved.contextSize ?? '');
  const [autoContext, setAutoContext] = useState(1024);
  const [estimate, setEstimate] = useState<{ text: string; state: 'ok' | 'hint' | 'error' } | undefined>();
  // The previews of the ticked cells for the form as it is: those the service refused, with why, are not queued.
  const [plan, setPlan] = useState<{ input: unknown; refused: { label: string; reason: string }[]; runnable: string[]; warning: string | undefined } | undefined>();
  const [queuing, setQueuing] = useState(false);
  // Local GGUF models are picked from the library above; every other provider of the registry is offered here.
  const [providers, setProviders] = useState<ProviderInfo[]>([]);
  const providerInfo = providers.find((p) => p.name === provider);
  const providerKey = keys?.find((k) => k.provider === provider);
  // A hosted provider refuses every request without its key; a server of your own may want none.
  const keyMissing = source === 'hosted' && providerInfo?.key === 'required' && providerKey !== undefined && !providerKey.set;

  useEffect(() => {
    void attempt(() => client.listDatasets({})).then((d) => {
      setDatasets(d ?? []);
      // A remembered dataset since deleted falls back to the latest, without its APIs.
      if (d && d.length > 0) setDatasetId((id) => (id !== undefined && d.some((x) => x.id === id) ? id : defaultDatasetId(d)));
      if (d && saved.datasetId !== undefined && !d.some((x) => x.id === saved.datasetId)) setApis([]);
    });
    void attempt(() => client.getApiKeyStatus({})).then((k) => setKeys(k ?? []));
    void attempt(() => client.listProviders({})).then((p) => setProviders(p ?? []));
    void attempt(() => client.listModels({})).then((m) => {
      setModels(m ?? []);
      const usable = m?.filter((x) => x.present) ?? [];
      if (usable.length > 0) setModelId((id) => (id !== undefined && usable.some((x) => x.id === id) ? id : usable[usable.length - 1]!.id));
      // An empty library leaves no local model to pick: a remote endpoint then, unless the form was left on one already (remote or hosted).
      else setSource((s) => (m && m.length === 0 && s === 'local' ? 'remote' : s));
    });
  }, [client, saved]);

  // Remembered as it changes, so leaving the page (or queuing) keeps it for the next visit.
  useEffect(() => {
    writeNewRunSettings({ ...(datasetId !== undefined ? { datasetId } : {}), ...(modelId !== undefined ? { modelId } : {}), apis, reviewStates, limit, sampleSize, sampleSeed, stratify, source, provider, providerModel, baseUrl, spendingCap, batch, repairRounds, remoteUrl, remoteModel, grid, conditions, retrieved, retrievedK, prompt, greedy, temperature, topK, topP, seed, n, maxTokens, parallel, contextSize });
  }, [datasetId, modelId, apis, reviewStates, limit, sampleSize, sampleSeed, stratify, source, provider, providerModel, baseUrl, spendingCap, batch, repairRounds, remoteUrl, remoteModel, grid, conditions, retrieved, retrievedK, prompt, greedy, temperature, topK, topP, seed, n, maxTokens, parallel, contextSize]);

  // The provider's own model list for the picker, where it lists them (GET /models); typing a name works either way.
  useEffect(() => {
    if (source !== 'hosted' || keyMissing) return setProviderModels(undefined);
    const url = baseUrl.trim();
    if (!providerInfo?.capabilities.listsModels || (providerInfo.defaultBaseUrl === undefined && !/^https?:\/\/\S+$/.test(url))) return setProviderModels(undefined);
    let live = true;
    const t = setTimeout(() => {
      client.listProviderModels({ provider, ...(url ? { baseUrl: url } : {}) }).then(
        (m) => live && setProviderModels(m),
        (e: unknown) => live && setProviderModels({ error: messageOf(e) }),
      );
    }, 250);
    return () => ((live = false), clearTimeout(t));
  }, [client, source, provider, providerInfo, baseUrl, keyMissing]);

  const dataset = datasets?.find((d) => d.id === datasetId);
  const useBatch = source === 'hosted' && providerInfo?.capabilities.batch === true && batch;
  const model = models?.find((m) => m.id === modelId);
  const number = (text: string): number | undefined => (text.trim() === '' || Number.isNaN(Number(text)) ? undefined : Number(text));

  /** The input of one startRun call, or why the form cannot make one. */
  const input = useMemo((): ((g: { setup: Setup; setting: Setting }) => StartRunInput) | string => {
    if (datasetId === undefined) return 'choose a dataset';
    if (source === 'local' && modelId === undefined) return 'choose a model';
    if (source === 'remote' && !/^https?:\/\/\S+$/.test(remoteUrl.trim())) return 'give the endpoint as an http(s) URL';
    if (keyMissing) return `no ${providerInfo?.label ?? provider} key: set ${providerInfo?.keyVariables[0] ?? 'its key'} before starting wapii (or save one in the app)`;
    if (source === 'hosted' && providerModel.trim() === '') return "give the provider's model";
    if (source === 'hosted' && baseUrl.trim() !== '' && !/^https?:\/\/\S+$/.test(baseUrl.trim())) return 'give the base URL as an http(s) URL';
    if (source === 'hosted' && providerInfo !== undefined && providerInfo.defaultBaseUrl === undefined && baseUrl.trim() === '') return "give the server's base URL";
    const cap = number(spendingCap);
    if (source === 'hosted' && spendingCap.trim() !== '' && (cap === undefined || cap <= 0)) return 'the spending cap must be a positive number of dollars';
    const rounds = number(repairRounds);
    if (!CLIENT_PROFILES[httpClient].constrainable && grid.some((g) => g.endsWith('/constrained'))) return `constrained decoding covers Axios calls only: untick the constrained cells for ${CLIENT_PROFILES[httpClient].label}`;
    if (grid.some((g) => g.endsWith('/repair')) && (rounds === undefined || rounds < 1 || rounds > 10 || !Number.isInteger(rounds))) return 'repair rounds must be a whole number from 1 to 10';
    if (grid.length === 0) return 'tick at least one cell of the grid';
    const k = number(retrievedK);
    if (retrieved && (k === undefined || k < 1 || !Number.isInteger(k))) return 'k of retrieved:k must be a whole number of 1 or more';
    const knowledge = [...CONDITIONS.map((c) => c.name).filter((c) => conditions.includes(c)), ...(retrieved ? [`retrieved:${k}`] : [])];
    if (knowledge.length === 0) return 'tick at least one knowledge condition';
    const lim = number(limit);
    if (limit.trim() !== '' && (lim === undefined || lim < 1 || !Number.isInteger(lim))) return 'the sample limit must be a whole number of 1 or more';
    const size = number(sampleSize);
    if (sampleSize.trim() !== '' && (size === undefined || size < 1 || !Number.isInteger(size))) return 'the random sample size must be a whole number of 1 or more';
    const drawSeed = number(sampleSeed);
    if (size && (drawSeed === undefined || drawSeed < 0 || !Number.isInteger(drawSeed))) return 'the random sample seed must be a whole number of 0 or more';
    const subset = { ...(apis.length > 0 ? { apis } : {}), ...(reviewStates.length > 0 ? { reviewStates } : {}), ...(lim ? { limit: lim } : {}), ...(size ? { sample: { size, seed: drawSeed ?? 1, stratify } } : {}) };
    const sampling = {
      temperature: greedy ? 0 : (number(temperature) ?? 0.8),
      topK: number(topK) ?? SAMPLING_DEFAULTS.topK,
      topP: number(topP) ?? SAMPLING_DEFAULTS.topP,
      seed: number(seed) ?? 1,
      n: number(n) ?? 1,
      maxTokens: number(maxTokens) ?? SAMPLING_DEFAULTS.maxTokens,
    };
    return (g) => ({
      datasetId,
      subset,
      model:
        source === 'local'
          ? { modelId: modelId! }
          : source === 'hosted'
            ? { provider: { name: provider, model: providerModel.trim(), batch: useBatch, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(cap !== undefined ? { spendingCapUsd: cap } : {}) } }
            : { remote: { url: remoteUrl.trim(), model: remoteModel.trim() || 'default' } },
      setup: g.setup,
      setting: g.setting,
      ...(g.setting === 'repair' ? { repairRounds: rounds } : {}),
      ...clientField(httpClient),
      prompt,
      sampling,
      ...(number(parallel) !== undefined ? { parallel: number(parallel) } : {}),
      contextSize: number(contextSize) ?? autoContext,
      knowledge,
    });
  }, [keyMissing, providerInfo, useBatch, httpClient, datasetId, source, modelId, remoteUrl, remoteModel, provider, providerModel, baseUrl, spendingCap, repairRounds, grid, conditions, retrieved, retrievedK, limit, sampleSize, sampleSeed, stratify, apis, reviewStates, greedy, temperature, topK, topP, seed, n, maxTokens, prompt, parallel, contextSize, autoContext]);

  const cells = GRID.filter((g) => grid.includes(cell(g)));
  // Each ticked cell is previewed on its own: the service refuses what it cannot run (a hosted
  // model constrained, say) as startRun would, and the form shows those cells and why before
  // anything is queued; the estimate and the button count only the others.
  useEffect(() => {
    setPlan(undefined);
    if (typeof input === 'string') return setEstimate({ text: `To queue: ${input}.`, state: 'hint' });
    if (cells.length === 0) return;
    // An answer for a form since changed is dropped: it would overwrite the line of the form as it is.
    let live = true;
    const t = setTimeout(() => {
      void Promise.all(
        cells.map((c) =>
          client.previewRun(input(c)).then(
            (p) => ({ cell: c, p }),
            (e: unknown) => ({ cell: c, error: e }),
          ),
        ),
      ).then((answers) => {
        if (!live) return;
        const ok = answers.flatMap((a) => ('p' in a ? [{ cell: a.cell, p: a.p }] : []));
        const refused = answers.flatMap((a) => ('error' in a && isCellRefusal(a.error) ? [{ label: a.cell.label, reason: messageOf(a.error) }] : []));
        const failed = answers.find((a) => 'error' in a && !isCellRefusal(a.error));
        if (failed && 'error' in failed) return setEstimate({ state: 'error', text: messageOf(failed.error) });
        // Every cell refused for one reason: that is the form's problem, not a cell's.
        if (ok.length === 0) return setEstimate({ state: 'error', text: refused.length > 0 && refused.every((r) => r.reason === refused[0]!.reason) ? refused[0]!.reason : refused.map((r) => `${r.label}: ${r.reason}`).join('; ') });
        const first = ok[0]!.p;
        // The context a blank field stands for: enough for every cell's longest prompt.
        const suggested = Math.max(...ok.map((o) => o.p.context?.suggested ?? 1024));
        if (contextSize.trim() === '' && suggested !== autoContext) setAutoContext(suggested);
        const runs = ok.reduce((sum, o) => sum + o.p.runs, 0);
        const outputs = ok.reduce((sum, o) => sum + o.p.outputs, 0);
        const each = first.runs > 1 ? ` (${ok.length} cell${ok.length === 1 ? '' : 's'} × ${first.runs} conditions)` : '';
        // previewRun's line already gives one run's most cost and its cap; for several cells say the total, and that repair asks again on top.
        const costs = ok.map((o) => o.p.cost?.usd);
        const cost = first.cost
          ? `${ok.length > 1 && costs.every((u) => u != null) ? ` · all ${ok.length} cells at most about $${costs.reduce<number>((sum, u) => sum + (u ?? 0), 0).toFixed(4)}` : ''}${ok.some((o) => o.cell.setting === 'repair') ? ' · each repair round asks again (its findings and the turns before), at a cost on top of this' : ''}`
          : '';
        // The line's head already says the outputs; previewRun's own line starts with them again.
        const perRun = first.estimate.replace(/^[\d,]+ outputs?, /, '');
        setEstimate({ state: 'ok', text: `${first.samples} samples × ${runs} run${runs === 1 ? '' : 's'}${each} = ${outputs} outputs · ${ok.length === 1 ? '' : first.runs === 1 ? 'each run: ' : 'each cell: '}${perRun}${cost}` });
        const warning = ok.map((o) => o.p.context?.warning).find((w) => w !== undefined);
        setPlan({ input, refused, runnable: ok.map((o) => cell(o.cell)), warning });
      });
    }, 250);
    return () => ((live = false), clearTimeout(t));
    // `cells` derives from `grid`, which `input` already depends on.
  }, [input, client]);

  const runsPerCell = CONDITIONS.filter((c) => conditions.includes(c.name)).length + (retrieved ? 1 : 0);
  const toggle = <T,>(list: T[], set: (l: T[]) => void, value: T, on: boolean): void => set(on ? [...list, value] : list.filter((x) => x !== value));
  // What the button queues: the cells the previews of this very form found runnable.
  const planned = plan && plan.input === input ? cells.filter((c) => plan.runnable.includes(cell(c))) : cells;
  const queue = async (): Promise<void> => {
    if (typeof input === 'string' || queuing) return;
    setQueuing(true);
    const ids: number[] = [];
    let failed: unknown;
    for (const g of planned) {
      try {
        ids.push(...(await client.startRun(input(g))).runIds);
      } catch (error) {
        failed = error;
        break;
      }
    }
    setQueuing(false);
    await useRuns.getState().load();
    // A refusal part-way stays on the form with what was queued and what was not: leaving would drop the banner unread.
    if (failed !== undefined) return useNotices.getState().showError(`${ids.length > 0 ? `queued ${ids.length} of ${planned.length * runsPerCell} runs; ` : ''}${messageOf(failed)}`);
    if (ids.length > 0) void navigate(ids.length === 1 ? `/runs/${ids[0]}` : '/runs');
  };

  if (!datasets || !models) return <main className="page scroll"><Loading what="datasets and models" /></main>;
  if (datasets.length === 0)
    return (
      <main className="page scroll">
        <Empty title="No dataset to run on.">
          Import one on the <Link to="/datasets">Datasets</Link> page first.
        </Empty>
      </main>
    );


  const runCount = planned.length * runsPerCell;
  return (
    <main className="page scroll">
      <form
        className="new-run"
        onSubmit={(e) => {
          e.preventDefault();
          void queue();
        }}
      >
        <h2>New run</h2>
        <fieldset>
          <legend>Dataset</legend>
          <label>
            Dataset
            <select aria-label="Run dataset" value={datasetId ?? ''} onChange={(e) => (setDatasetId(Number(e.target.value)), setApis([]))}>
              {datasets.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} — {d.sampleCount} samples
                </option>
              ))}
            </select>
          </label>
          {dataset?.starterCount ? (
            <p className="muted" data-testid="real-world-setups">
              {dataset.starterCount === dataset.sampleCount ? 'Every sample' : `${dataset.starterCount} of ${dataset.sampleCount} samples`} brings its own starter code (the real-world format): full completion continues
              it where the call starts, argument completion appends the method and URL (its template URL in backticks), chat uses upstream&apos;s context prompt, and
              each call runs after the sample&apos;s definitions.
            </p>
          ) : null}
          <div className="choices" role="group" aria-label="APIs">
            <span className="muted">APIs (none ticked: all)</span>
            {dataset?.apis.map((a) => (
              <label key={a.api} className="check">
                <input type="checkbox" checked={apis.includes(a.api)} onChange={(e) => toggle(apis, setApis, a.api, e.target.checked)} />
                {a.api} <span className="muted">({a.samples})</span>
              </label>
            ))}
          </div>
          <div className="choices" role="group" aria-label="Review states">
            <span className="muted">Review states (none ticked: all)</span>
            {REVIEW_STATES.map((r) => (
              <label key={r} className="check">
                <input type="checkbox" checked={reviewStates.includes(r)} onChange={(e) => toggle(reviewStates, setReviewStates, r, e.target.checked)} />
                {r}
              </label>
            ))}
          </div>
          <label>
            First
            <input type="number" min={1} className="narrow" aria-label="Sample limit" placeholder="all" value={limit} onChange={(e) => setLimit(e.target.value)} />
            samples
          </label>
          <label>
            Random
            <input type="number" min={1} className="narrow" aria-label="Random sample size" placeholder="all" value={sampleSize} onChange={(e) => setSampleSize(e.target.value)} />
            samples, seed
            <input type="number" min={0} className="narrow" aria-label="Random sample seed" value={sampleSeed} onChange={(e) => setSampleSeed(e.target.value)} />
          </label>
          <label className="check" title="Each API keeps its share of the sample (largest-remainder rounding)">
            <input type="checkbox" aria-label="Stratify by API" checked={stratify === 'api'} onChange={(e) => setStratify(e.target.checked ? 'api' : 'none')} />
            per API
          </label>
        </fieldset>

        <fieldset>
          <legend>Model</legend>
          <div className="choices">
            <label className="check">
              <input type="radio" name="source" checked={source === 'local'} onChange={() => setSource('local')} /> local model
            </label>
            <label className="check">
              <input type="radio" name="source" checked={source === 'remote'} onChange={() => setSource('remote')} /> remote OpenAI-compatible endpoint
            </label>
            <label className="check">
              <input type="radio" name="source" aria-label="hosted provider" checked={source === 'hosted'} onChange={() => setSource('hosted')} /> a provider by name (hosted API, Ollama, a server)
            </label>
          </div>
          {source === 'local' ? (
            models.length === 0 ? (
              <p className="muted">
                The library is empty: add a GGUF file on the <Link to="/models">Models</Link> page.
              </p>
            ) : (
              <label>
                Model
                <select aria-label="Model" value={modelId ?? ''} onChange={(e) => setModelId(Number(e.target.value))}>
                  {models.map((m) => (
                    <option key={m.id} value={m.id} disabled={!m.present}>
                      {m.name} — {m.architecture} {m.parametersLabel} {m.quantisation}
                      {m.present ? '' : ' (file missing)'}
                    </option>
                  ))}
                </select>
                {model?.fit && <span className={model.fit.fitsGpu || model.fit.fitsRam ? 'muted' : 'error-inline'}>{model.fit.summary}</span>}
              </label>
            )
          ) : source === 'hosted' ? (
            <>
              <div className="row">
                <label>
                  Provider
                  <select aria-label="Provider" value={provider} onChange={(e) => (setProvider(e.target.value), setProviderModels(undefined))}>
                    {providers.filter((p) => p.modelIs === 'name').map((p) => (
                      <option key={p.name} value={p.name}>
                        {p.label}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Model
                  <input aria-label="Provider model" list="provider-models" value={providerModel} onChange={(e) => setProviderModel(e.target.value)} placeholder={providerInfo?.defaultModel ?? "the provider's name for it"} />
                  <datalist id="provider-models">
                    {providerModels && 'models' in providerModels && providerModels.models.map((m) => <option key={m} value={m} />)}
                  </datalist>
                </label>
                <label>
                  Base URL
                  <input type="url" aria-label="Provider base URL" size={32} placeholder={providerInfo?.defaultBaseUrl ?? 'https://… (required)'} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
                </label>
                <label>
                  spending cap $
                  <input className="narrow" aria-label="Spending cap" placeholder="none" value={spendingCap} onChange={(e) => setSpendingCap(e.target.value)} />
                </label>
              </div>
              {providerInfo?.capabilities.batch && (
                <label className="check" title="Every request of the run goes in one batch file; OpenAI answers within 24 hours, at half the price. A run that stops keeps its batch and a resume reads it; Cancel cancels it at OpenAI.">
                  <input type="checkbox" aria-label="Batch API" checked={batch} onChange={(e) => setBatch(e.target.checked)} /> OpenAI Batch API: half the price, results within 24 h
                </label>
              )}
              <p className={keyMissing ? 'error-inline' : 'muted'} data-testid="provider-key">
                {providerInfo && keyLine(providerInfo, providerKey)}
              </p>
              <p className="muted" data-testid="provider-models">
                {providerModels === undefined
                  ? ''
                  : 'error' in providerModels
                    ? <span className="error-inline">{providerModels.error}</span>
                    : `${providerModels.models.length} models listed by the provider (pick one as you type). Hosted models run unconstrained or with repair.`}
              </p>
            </>
          ) : (
            <div className="row">
              <label>
                URL
                <input type="url" aria-label="Endpoint URL" value={remoteUrl} onChange={(e) => setRemoteUrl(e.target.value)} size={40} />
              </label>
              <label>
                Model name
                <input aria-label="Remote model" value={remoteModel} onChange={(e) => setRemoteModel(e.target.value)} />
              </label>
            </div>
          )}
        </fieldset>

        <fieldset>
          <legend>The paper's grid</legend>
          <div className="grid-choice" role="group" aria-label="Setup and setting">
            {GRID.map((g) => (
              <label key={cell(g)} className="check">
                <input type="checkbox" checked={grid.includes(cell(g))} onChange={(e) => toggle(grid, setGrid, cell(g), e.target.checked)} />
                {g.label}
              </label>
            ))}
          </div>
          <div className="choices">
            <span className="muted">Prompt</span>
            <label className="check">
              <input type="radio" name="prompt" checked={prompt === 'completion'} onChange={() => setPrompt('completion')} /> completion (base models)
            </label>
            <label className="check">
              <input type="radio" name="prompt" checked={prompt === 'chat'} onChange={() => setPrompt('chat')} /> chat (instruct models)
            </label>
            {prompt === 'chat' && model && !model.chatTemplate && <span className="error-inline">this model has no chat template</span>}
          </div>
          <div className="choices">
            <span className="muted">HTTP client</span>
            {HTTP_CLIENTS.map((name) => (
              <label className="check" key={name}>
                <input type="radio" name="http-client" aria-label={`client ${name}`} checked={httpClient === name} onChange={() => setHttpClient(name)} /> {CLIENT_NOTES[name]}
              </label>
            ))}
          </div>
          <label>
            repair rounds
            <input className="narrow" aria-label="Repair rounds" disabled={!grid.some((g) => g.endsWith('/repair'))} value={repairRounds} onChange={(e) => setRepairRounds(e.target.value)} />
            <span className="muted">at most this many follow-ups with the spec checker&apos;s findings per output (repair: any model, no logits needed)</span>
          </label>
        </fieldset>

        <fieldset>
          <legend>API knowledge in the prompt</legend>
          <div className="grid-choice" role="group" aria-label="Knowledge conditions">
            {CONDITIONS.map((c) => (
              <label key={c.name} className="check">
                <input type="checkbox" aria-label={`knowledge ${c.name}`} checked={conditions.includes(c.name)} onChange={(e) => toggle(conditions, setConditions, c.name, e.target.checked)} />
                {c.label}
              </label>
            ))}
            <label className="check" style={{ gridColumn: '1 / -1' }}>
              <input type="checkbox" aria-label="knowledge retrieved" checked={retrieved} onChange={(e) => setRetrieved(e.target.checked)} />
              retrieved: the top
              <input className="narrow" aria-label="Retrieved endpoints" disabled={!retrieved} value={retrievedK} onChange={(e) => setRetrievedK(e.target.value)} />
              endpoints BM25 finds for the task
            </label>
          </div>
          <p className="muted">One run per ticked condition and grid cell, all on the one loaded model; compare them on the Compare page.</p>
        </fieldset>

        <fieldset>
          <legend>Sampling and resources</legend>
          <div className="row">
            <label className="check">
              <input type="checkbox" checked={greedy} onChange={(e) => setGreedy(e.target.checked)} /> greedy
            </label>
            <label>
              temperature
              <input className="narrow" aria-label="Temperature" disabled={greedy} value={temperature} onChange={(e) => setTemperature(e.target.value)} />
            </label>
            <label>
              top-k
              <input className="narrow" aria-label="Top-k" disabled={greedy} value={topK} onChange={(e) => setTopK(e.target.value)} />
            </label>
            <label>
              top-p
              <input className="narrow" aria-label="Top-p" disabled={greedy} value={topP} onChange={(e) => setTopP(e.target.value)} />
            </label>
            <label>
              seed
              <input className="narrow" aria-label="Seed" value={seed} onChange={(e) => setSeed(e.target.value)} />
            </label>
            <label>
              n
              <input className="narrow" aria-label="Outputs per sample" value={n} onChange={(e) => setN(e.target.value)} />
            </label>
          </div>
          <div className="row">
            <label>
              max tokens
              <input className="narrow" aria-label="Max tokens" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
            </label>
            <label>
              parallel sequences
              <input className="narrow" aria-label="Parallel sequences" placeholder="auto" title={`blank: ${DEFAULT_PARALLEL} on the CPU, ${DEFAULT_PARALLEL_GPU} on a GPU`} value={parallel} onChange={(e) => setParallel(e.target.value)} />
            </label>
            <label>
              context
              <input aria-label="Context size" size={9} placeholder={`auto (${autoContext})`} title="blank: enough for the subset's longest prompt and max tokens, as far as the model's trained context allows" value={contextSize} onChange={(e) => setContextSize(e.target.value)} />
            </label>
          </div>
        </fieldset>

        <p className={`estimate ${estimate?.state ?? 'hint'}`} data-testid="run-estimate">
          {estimate?.text ?? '…'}
        </p>
        {plan && plan.input === input && plan.warning && (
          <p className="estimate warn" role="note" data-testid="context-warning">
            {plan.warning}
          </p>
        )}
        {plan && plan.input === input && plan.refused.length > 0 && (
          <ul className="estimate warn refused" data-testid="refused-cells">
            {plan.refused.map((r) => (
              <li key={r.label}>
                Not queued: {r.label}: {r.reason}
              </li>
            ))}
          </ul>
        )}
        <div className="row">
          <button type="submit" disabled={typeof input === 'string' || queuing || estimate?.state === 'error' || plan?.input !== input || planned.length === 0}>
            {queuing ? 'Queuing…' : `Queue ${runCount} run${runCount === 1 ? '' : 's'}`}
          </button>
          <Link to="/runs" className="muted">
            back to the runs
          </Link>
        </div>
      </form>
    </main>
  );
}

/** One line on the provider's key: where it comes from, or which variable to set; never the key. */
function keyLine(provider: ProviderInfo, status: KeyStatus | undefined): string {
  const variable = provider.keyVariables[0];
  if (provider.key === 'none' || variable === undefined) return `${provider.label} takes no key.`;
  if (!status) return `The key comes from ${variable} or the app's key store; it is sent only to the provider and never stored with the run.`;
  if (status.set) return `${provider.label} key: from ${status.source === 'saved' ? "the app's key store" : variable}; it is sent only to the provider and never stored with the run.`;
  if (provider.key === 'optional') return `No key for the server (${variable} is not set): requests go without one, as a server without auth expects.`;
  return `No ${provider.label} key: set ${variable} before starting wapii (or save one in the app); a run cannot start without it.`;
}
