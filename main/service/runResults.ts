import type { Output, Parsed } from '../api/contract.js';
import { readRunSettings, type CompareResult, type RunSettings, type RunDetail, type RunSampleDetail, type RunSampleFilter, type RunSampleRow, type RunStatus, type RunSummary } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import type { CapturedRequest, JsonValue } from '../api/schemas.js';
import { extractInvocation } from '../execution/index.js';
import { resolveEndpoint, type ApiSpec } from '../openapi/index.js';
import {
  BOOTSTRAP,
  HEADLINE,
  headlineValue,
  PAIRED_STATISTIC,
  pairedComparison,
  passAtKOf,
  proportionsOf,
  statisticsPerApi,
  uncertaintyOf,
  type FailureClass,
  type SampleVerdict,
  type Statistics,
  type Uncertainty,
  type Verdict,
} from '../scoring/index.js';
import type { OutputRow, RunInput, RunRepository, RunRow } from '../store/runs.js';
import { definedValue, exportRunFiles } from './runExport.js';
import { outputFailures, runFailures } from './runFailures.js';
import { runSampleSetup, runSetupOptions } from './runPlan.js';
import { argumentsOf, compareSteps, endpointLabel, inputSteps, requestArguments, timelineOf } from './runTimeline.js';

/** One output of a run as the result pages filter and sort it, built once per run and cached. */
interface IndexedOutput {
  readonly row: RunSampleRow;
  /** The verdict in force (override applied); null for an output that failed to generate. */
  readonly verdict: Verdict | null;
  readonly argumentVerdicts: ReadonlySet<string>;
  /** The failure classes in force; null: not classifiable (see runFailures.ts). */
  readonly failures: readonly FailureClass[] | null;
  /** Lower-cased task, sample id and code, for the text filter. */
  readonly haystack: string;
  /** The sample as the run took it: content hash of {task, config} (null: a file run, no snapshot). */
  readonly contentHash: string | null;
  /** The reason of the override in force. */
  readonly overrideReason: string | null;
  /** A multi-step sample's steps as `METHOD /template`, in order (Compare's per-step rows); absent for a single request. */
  readonly stepEndpoints?: readonly string[];
}

/** A run's statistics with overrides applied, and what is computed from them once per run state. */
interface Report {
  readonly statistics: Statistics | null;
  readonly per_api: Record<string, Statistics>;
  readonly uncertainty: Uncertainty | null;
  readonly per_api_uncertainty: Record<string, Uncertainty>;
  readonly pass_at_k: Record<string, number>;
}

interface RunIndex {
  readonly key: string;
  readonly outputs: readonly IndexedOutput[];
  readonly byKey: ReadonlyMap<string, number>;
  /** Computed on first use (the bootstrap is the costly part). */
  report?: Report;
}

export interface ResultsContext {
  readonly runs: RunRepository;
  readonly author: string;
  /** A stored spec by content hash, parsed once. */
  readonly spec: (hash: string) => Promise<ApiSpec | undefined>;
  /** The current state of a stored dataset's samples: id → content hash and spec hash (undefined: dataset gone). */
  readonly currentSamples: (datasetId: number) => Map<string, { contentHash: string; specHash: string | null }> | undefined;
  readonly datasetName: (datasetId: number) => string | undefined;
  /** Live progress of runs this process is running. */
  readonly progress: (runId: number) => RunDetail['progress'];
  readonly emitRunsChanged: () => void;
}

const outputKey = (index: number, attempt: number): string => `${index}.${attempt}`;
const VERDICT_ORDER: Record<string, number> = { correct: 0, wrong: 1, illegal: 2, nonexecutable: 3 };

function verdictLabel(v: Verdict | null): string | null {
  if (!v) return null;
  return v.sample_verdict === 'nonexecutable' && v.error_verdict ? `nonexecutable (${v.error_verdict})` : v.sample_verdict;
}

/** The scorer's verdict with a reviewer's override of the sample verdict applied. */
function withOverride(v: Verdict, to: SampleVerdict | null | undefined): Verdict {
  if (!to) return v;
  return { ...v, sample_verdict: to, error_verdict: to === 'nonexecutable' ? v.error_verdict : null };
}

/** The stored outputs, filtered, sorted, compared and exported for the result pages. */
export class RunResults {
  private readonly indexes = new Map<number, RunIndex>();
  /** Bumped on every write this process makes; with SQLite's data_version it keys the caches. */
  private localVersion = 0;

  constructor(private readonly ctx: ResultsContext) {}

  /** Call after writing a run's outputs or overrides. */
  invalidate(runId?: number): void {
    this.localVersion++;
    if (runId === undefined) this.indexes.clear();
    else this.indexes.delete(runId);
  }

  private cacheKey(run: RunRow): string {
    return `${this.ctx.runs.dataVersion()}.${this.localVersion}.${run.done}.${run.overridden}.${run.status}`;
  }

  run(runId: number): RunRow {
    const run = this.ctx.runs.get(runId);
    if (!run) throw new WapiiError('not_found', `run ${runId} does not exist`);
    return run;
  }

  private async index(run: RunRow): Promise<RunIndex> {
    const key = this.cacheKey(run);
    const cached = this.indexes.get(run.id);
    if (cached && cached.key === key) return cached;
    const inputs = new Map(this.ctx.runs.inputs(run.id).map((i) => [i.index, i]));
    const overrides = new Map<string, SampleVerdict | null>();
    const reasons = new Map<string, string>();
    for (const o of this.ctx.runs.overrides(run.id)) {
      overrides.set(outputKey(o.sampleIndex, o.attempt), o.to as SampleVerdict | null);
      reasons.set(outputKey(o.sampleIndex, o.attempt), o.reason);
    }
    const specs = new Map<string, ApiSpec | undefined>();
    for (const input of inputs.values()) if (input.specHash && !specs.has(input.specHash)) specs.set(input.specHash, await this.ctx.spec(input.specHash));
    const backfill: { index: number; attempt: number; failures: FailureClass[] }[] = [];
    const outputs = this.ctx.runs.outputs(run.id).map((o) => this.indexOutput(o, inputs.get(o.sample_index), overrides, reasons, specs, backfill));
    // Outputs stored before failure classes were get theirs now, once.
    this.ctx.runs.setFailures(run.id, backfill);
    const index: RunIndex = { key, outputs, byKey: new Map(outputs.map((o, i) => [outputKey(o.row.index, o.row.attempt), i])) };
    this.indexes.set(run.id, index);
    return index;
  }

  private indexOutput(o: OutputRow, input: RunInput | undefined, overrides: Map<string, SampleVerdict | null>, reasons: Map<string, string>, specs: Map<string, ApiSpec | undefined>, backfill: { index: number; attempt: number; failures: FailureClass[] }[]): IndexedOutput {
    const scorer = o.error === null ? (JSON.parse(o.verdict) as Verdict | null) : null;
    const key = outputKey(o.sample_index, o.attempt);
    const override = overrides.get(key);
    const verdict = scorer ? withOverride(scorer, override) : null;
    const counts: Record<string, number> = {};
    const argumentVerdicts = new Set<string>();
    // A multi-step sample's arguments are its steps' (the statistics count them so too).
    for (const a of requestArguments(verdict)) {
      counts[a.verdict] = (counts[a.verdict] ?? 0) + 1;
      argumentVerdicts.add(a.verdict);
    }
    const generation = o.generation === null ? null : (JSON.parse(o.generation) as { tokens?: number });
    const spec = input?.specHash ? specs.get(input.specHash) : undefined;
    const classified = outputFailures(o, scorer, verdict, override !== undefined && override !== null, input, spec);
    const stepEndpoints = inputSteps(input)?.map((s) => endpointLabel(spec, s.config));
    if (classified.backfill) backfill.push({ index: o.sample_index, attempt: o.attempt, failures: classified.backfill });
    const row: RunSampleRow = {
      index: o.sample_index,
      attempt: o.attempt,
      sampleId: input?.sampleId ?? null,
      api: o.api,
      task: input?.task ?? '',
      endpoint: stepEndpoints ? stepEndpoints.join(' → ') : input ? endpointLabel(spec, input.config) : '',
      sample_verdict: verdict?.sample_verdict ?? null,
      error_verdict: verdict?.error_verdict ?? null,
      url_verdict: verdict?.url_verdict ?? null,
      method_verdict: verdict?.method_verdict ?? null,
      endpoint_verdict: verdict?.endpoint_verdict ?? null,
      argumentCounts: counts,
      failures: classified.failures ?? [],
      overridden: override !== undefined && override !== null,
      error: o.error,
      tokens: generation?.tokens ?? null,
      durationMs: o.duration_ms,
      ...(verdict?.steps ? { steps_correct: verdict.steps_correct ?? 0, steps_total: verdict.steps_total ?? verdict.steps.length } : {}),
    };
    return {
      row,
      verdict,
      argumentVerdicts,
      failures: classified.failures,
      haystack: `${row.task}\n${row.sampleId ?? ''}\n${o.code}`.toLowerCase(),
      contentHash: input?.contentHash ?? null,
      overrideReason: row.overridden ? (reasons.get(key) ?? null) : null,
      ...(stepEndpoints ? { stepEndpoints } : {}),
    };
  }

  /** Statistics from the stored verdicts with overrides applied (errored outputs left out), with their intervals. */
  private async report(run: RunRow): Promise<Report> {
    const index = await this.index(run);
    if (index.report) return index.report;
    const scored = index.outputs.filter((o) => o.verdict !== null);
    if (scored.length === 0) return (index.report = { statistics: null, per_api: {}, uncertainty: null, per_api_uncertainty: {}, pass_at_k: {} });
    const items = scored.map((o) => ({ api: o.row.api, verdict: o.verdict! }));
    const { statistics, perApi } = statisticsPerApi(items);
    const tasks = new Map<number, Verdict[]>();
    for (const o of scored) tasks.set(o.row.index, [...(tasks.get(o.row.index) ?? []), o.verdict!]);
    return (index.report = {
      statistics,
      per_api: perApi,
      uncertainty: uncertaintyOf(statistics, items.map((i) => i.verdict)),
      per_api_uncertainty: Object.fromEntries(Object.entries(perApi).map(([api, s]) => [api, uncertaintyOf(s, items.filter((i) => i.api === api).map((i) => i.verdict))])),
      pass_at_k: passAtKOf([...tasks.values()]),
    });
  }

  /** Which of the run's samples changed in the stored dataset since the run took them. */
  private datasetChanges(run: RunRow, current = run.datasetId === null ? undefined : this.ctx.currentSamples(run.datasetId)): RunDetail['datasetChanges'] {
    if (run.datasetId === null) return [];
    const changes: RunDetail['datasetChanges'] = [];
    for (const input of this.ctx.runs.inputs(run.id)) {
      if (!input.sampleId) continue;
      const now = current?.get(input.sampleId);
      if (!now) changes.push({ sampleId: input.sampleId, index: input.index, change: 'removed' });
      else if (now.contentHash !== input.contentHash) changes.push({ sampleId: input.sampleId, index: input.index, change: 'edited' });
      else if (input.specHash && now.specHash !== input.specHash) changes.push({ sampleId: input.sampleId, index: input.index, change: 'spec changed' });
    }
    return changes;
  }

  summary(run: RunRow, changed?: boolean): RunSummary {
    const stats = run.statistics?.statistics as Statistics | undefined;
    // The run's settings, typed; a field the run never stored (scored code has no prompt) reads null.
    const typed = readRunSettings(run.settings);
    const stored = <K extends 'setup' | 'setting' | 'prompt'>(key: K): RunSettings[K] | null => (run.settings[key] === undefined ? null : typed[key]);
    return {
      id: run.id,
      kind: run.kind,
      status: run.status as RunStatus,
      datasetId: run.datasetId,
      dataset: run.datasetId !== null ? (this.ctx.datasetName(run.datasetId) ?? run.dataset) : run.dataset,
      model: run.model?.name ?? (typeof run.manifest?.['modelFile'] === 'string' ? String(run.manifest['modelFile']).split(/[\\/]/).pop()! : null),
      setup: stored('setup'),
      setting: stored('setting'),
      prompt: stored('prompt'),
      knowledge: run.kind === 'generation' ? (run.settings['knowledge'] === undefined && typeof run.manifest?.['knowledge'] === 'string' ? run.manifest['knowledge'] : typed.knowledge) : null,
      createdAt: run.createdAt,
      finishedAt: run.finishedAt,
      total: run.total ?? run.done,
      done: run.done,
      correct: stats ? headlineValue(stats, 'samples_correct_wrt_total') : null,
      illegal: stats ? headlineValue(stats, 'samples_illegal_wrt_executable') : null,
      correctOf: stats ? (proportionsOf(stats)['samples_correct_wrt_total'] ?? null) : null,
      illegalOf: stats ? (proportionsOf(stats)['samples_illegal_wrt_executable'] ?? null) : null,
      overridden: run.overridden,
      datasetChanged: changed ?? this.datasetChanges(run).length > 0,
      error: run.error,
      demo: run.demo,
    };
  }

  listRuns(): Output<'listRuns'> {
    // Each dataset's current state is read once for all its runs.
    const current = new Map<number, ReturnType<ResultsContext['currentSamples']>>();
    return this.ctx.runs.list().map((r) => {
      if (r.datasetId === null) return this.summary(r, false);
      if (!current.has(r.datasetId)) current.set(r.datasetId, this.ctx.currentSamples(r.datasetId));
      return this.summary(r, this.datasetChanges(r, current.get(r.datasetId)).length > 0);
    });
  }

  async getRun(runId: number): Promise<RunDetail> {
    const run = this.run(runId);
    const changes = this.datasetChanges(run);
    const { statistics, per_api, uncertainty, per_api_uncertainty, pass_at_k } = await this.report(run);
    const inputs = this.ctx.runs.inputs(run.id);
    const live = this.ctx.progress(run.id);
    const summary = this.summary(run, changes.length > 0);
    return {
      ...summary,
      // Live runs have no stored statistics yet; the headline numbers follow what is stored so far.
      correct: statistics ? headlineValue(statistics, 'samples_correct_wrt_total') : summary.correct,
      illegal: statistics ? headlineValue(statistics, 'samples_illegal_wrt_executable') : summary.illegal,
      correctOf: statistics ? (proportionsOf(statistics)['samples_correct_wrt_total'] ?? null) : summary.correctOf,
      illegalOf: statistics ? (proportionsOf(statistics)['samples_illegal_wrt_executable'] ?? null) : summary.illegalOf,
      settings: run.settings,
      manifest: run.manifest,
      subset: run.subset,
      statistics,
      per_api,
      datasetChanges: changes,
      progress: live,
      apis: [...new Set(inputs.map((i) => i.api))].sort(),
      uncertainty: uncertainty ? { intervals: uncertainty.intervals, counts: uncertainty.counts } : null,
      per_api_uncertainty: Object.fromEntries(Object.entries(per_api_uncertainty).map(([api, u]) => [api, { intervals: u.intervals, counts: u.counts }])),
      bootstrap: BOOTSTRAP,
      pass_at_k,
      failures: statistics ? runFailures((await this.index(run)).outputs.filter((o) => o.verdict !== null).map((o) => ({ api: o.row.api, failures: o.failures }))) : null,
    };
  }

  async listRunSamples(input: Parsed<'listRunSamples'>): Promise<Output<'listRunSamples'>> {
    const index = await this.index(this.run(input.runId));
    const matches = index.outputs.filter(matcher(input.filter));
    const dir = input.sort.dir === 'desc' ? -1 : 1;
    const by = input.sort.by;
    if (by !== 'index' || dir < 0) {
      const value = (o: IndexedOutput): number | string =>
        by === 'api' ? o.row.api : by === 'verdict' ? (VERDICT_ORDER[o.row.sample_verdict ?? ''] ?? 9) : by === 'tokens' ? (o.row.tokens ?? -1) : by === 'duration' ? (o.row.durationMs ?? -1) : o.row.index;
      matches.sort((a, b) => {
        const va = value(a);
        const vb = value(b);
        return (va < vb ? -1 : va > vb ? 1 : a.row.index - b.row.index || a.row.attempt - b.row.attempt) * dir;
      });
    }
    return { total: matches.length, rows: matches.slice(input.offset, input.offset + input.limit).map((o) => o.row) };
  }

  async getRunSample(input: Parsed<'getRunSample'>): Promise<RunSampleDetail> {
    const run = this.run(input.runId);
    const index = await this.index(run);
    const position = index.byKey.get(outputKey(input.index, input.attempt));
    const stored = this.ctx.runs.output(run.id, input.index, input.attempt);
    if (position === undefined || !stored) throw new WapiiError('not_found', `run ${run.id} has no output for sample ${input.index}${input.attempt ? ` (attempt ${input.attempt})` : ''}`);
    const entry = index.outputs[position]!;
    const inputRow = this.ctx.runs.input(run.id, input.index);
    const spec = inputRow?.specHash ? await this.ctx.spec(inputRow.specHash) : undefined;
    const expectedEndpoint = spec && inputRow ? resolveEndpoint(spec, inputRow.config.url, inputRow.config.method).endpoint : undefined;
    const request = stored.request === null ? null : (JSON.parse(stored.request) as { method: string; url: string; headers: Record<string, JsonValue>; params: Record<string, JsonValue>; data?: JsonValue });
    const captured = spec && request ? resolveEndpoint(spec, request.url, request.method) : undefined;
    const extraction = JSON.parse(stored.extraction) as { rule: string; call: string } | { error: string };
    const execution = stored.execution === null ? null : (JSON.parse(stored.execution) as { console?: string[]; error?: { kind: string; message: string }; captured?: CapturedRequest[] });
    const generation = stored.generation === null ? null : (JSON.parse(stored.generation) as Record<string, unknown>);
    // The stored extraction keeps the call, not its offsets; cutting again (a pure function) with the
    // setup the run gave the sample (its mode, client and own starter) gives them.
    // The Setup the run stored with the sample; a run stored before setups were rebuilds it from its settings.
    const cut = extractInvocation(stored.code, inputRow ? (inputRow.setup ?? runSampleSetup(inputRow, runSetupOptions(run.settings))) : undefined);
    // A multi-step sample's program runs whole: no call was cut from it.
    const callRange: [number, number] | null = 'call' in extraction && extraction.rule !== 'whole program' && cut.status === 'ok' ? [cut.start, cut.call.endsWith(`${cut.rule}\n`) ? cut.cut + cut.rule.length : cut.cut] : null;
    const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
    const scorer = stored.error === null ? (JSON.parse(stored.verdict) as Verdict | null) : null;
    return {
      ...entry.row,
      expected: inputRow?.config ?? { url: '', method: '' },
      expectedEndpoint: expectedEndpoint ? { method: expectedEndpoint.method, path: expectedEndpoint.path } : null,
      capturedEndpoint: captured?.endpoint && captured.candidate ? { method: captured.endpoint.method, path: captured.endpoint.path, pathParams: { ...captured.candidate.pathParams } } : null,
      prompt: stored.prompt,
      code: stored.code,
      rawOutput: stored.raw_output,
      extraction,
      callRange,
      request,
      verdict: entry.verdict,
      scorerVerdict: scorer,
      arguments: argumentsOf(entry.verdict),
      generation: generation
        ? {
            stop: String(generation['stop'] ?? ''),
            tokens: num(generation['tokens']),
            promptTokens: num(generation['promptTokens']),
            promptMs: num(generation['promptMs']),
            generateMs: num(generation['generateMs']),
            constraintMs: num(generation['constraintMs']),
            interventions: Array.isArray(generation['interventions']) ? (generation['interventions'] as NonNullable<RunSampleDetail['generation']>['interventions']) : [],
            trace: Array.isArray(generation['trace']) ? (generation['trace'] as string[]) : null,
            ...(Array.isArray(generation['repair']) ? { repair: generation['repair'] as NonNullable<NonNullable<RunSampleDetail['generation']>['repair']> } : {}),
          }
        : null,
      console: execution?.console ?? [],
      runtimeError: execution?.error ? `${execution.error.kind}: ${execution.error.message}` : stored.error,
      // A multi-step output: its steps beside the requests they took (the scorer's: an override changes the sample's verdict only).
      ...(scorer?.steps ? { timeline: timelineOf(scorer, inputSteps(inputRow), execution?.captured ?? [], spec) } : {}),
      overrides: this.ctx.runs
        .overrides(run.id, { index: input.index, attempt: input.attempt })
        .map((o) => ({ at: o.at, author: o.author, reason: o.reason, from: o.from as SampleVerdict, to: o.to as SampleVerdict | null })),
      previous: position > 0 ? index.outputs[position - 1]!.row.index : null,
      next: position + 1 < index.outputs.length ? index.outputs[position + 1]!.row.index : null,
    };
  }

  async overrideVerdict(input: Parsed<'overrideVerdict'>): Promise<RunSampleDetail> {
    const run = this.run(input.runId);
    if (run.status === 'running' || run.status === 'queued') throw new WapiiError('conflict', `run ${run.id} is ${run.status}; override verdicts once it has stopped`);
    const current = await this.getRunSample({ runId: run.id, index: input.index, attempt: input.attempt });
    if (!current.verdict) throw new WapiiError('conflict', `sample ${input.index} of run ${run.id} failed to generate (${current.error}); there is no verdict to override`);
    if (input.verdict === null && !current.overridden) throw new WapiiError('conflict', `sample ${input.index} of run ${run.id} has no override to withdraw`);
    if (input.verdict !== null && input.verdict === current.verdict.sample_verdict) throw new WapiiError('conflict', `sample ${input.index} of run ${run.id} is already ${input.verdict}`);
    // The verdict checked above must still be the output's when the override is written.
    const added = this.ctx.runs.addOverride(run.id, { sampleIndex: input.index, attempt: input.attempt, author: this.ctx.author, reason: input.reason, from: current.verdict.sample_verdict, to: input.verdict }, current.overrides.length);
    if (!added) throw new WapiiError('conflict', `sample ${input.index} of run ${run.id} was overridden by someone else meanwhile; reload it and try again`);
    this.invalidate(run.id);
    const fresh = this.run(run.id);
    const report = await this.report(fresh);
    if (fresh.statistics !== null) this.ctx.runs.setStatistics(run.id, { statistics: report.statistics, per_api: report.per_api });
    this.invalidate(run.id);
    this.ctx.emitRunsChanged();
    return this.getRunSample({ runId: run.id, index: input.index, attempt: input.attempt });
  }

  /** Stores the statistics of a run that stopped (finished, cancelled), overrides applied. */
  async storeStatistics(runId: number): Promise<void> {
    this.invalidate(runId);
    const report = await this.report(this.run(runId));
    if (report.statistics) this.ctx.runs.setStatistics(runId, { statistics: report.statistics, per_api: report.per_api });
    this.invalidate(runId);
  }

  async compareRuns(input: Parsed<'compareRuns'>): Promise<CompareResult> {
    const baseline = this.run(input.baselineId);
    const others = input.runIds.map((id) => this.run(id));
    const all = [baseline, ...others];
    const { by, maps } = await this.aligned(all);
    const base = maps[0]!;
    const rest = maps.slice(1);
    const runs = rest.map((m) => {
      const common = [...m.keys()].filter((k) => base.has(k)).length;
      return { common, baselineLacks: m.size - common, runLacks: base.size - common };
    });
    others.forEach((r, i) => {
      if (runs[i]!.common > 0) return;
      throw new WapiiError(
        'bad_input',
        `run ${r.id} shares no sample with run ${baseline.id} (${describeRun(this.summary(baseline))} vs ${describeRun(this.summary(r))}, aligned by ${by}); compare runs on the same samples`,
      );
    });

    const reports = await Promise.all(all.map((r) => this.report(r)));
    // Runs with multi-step samples add the step rate and the carried values' (scoring.md §7).
    const multiStep = reports.some((r) => r.statistics?.['steps_total'] !== undefined);
    const metrics = [['Samples', 'samples_total'] as const, ...HEADLINE, ...(multiStep ? STEP_METRICS : [])].map(([label, key]) => {
      // A mean metric over no sample is null, as an empty denominator's rate is: not the reference's 0.
      const values = reports.map((r) => (r.statistics ? definedValue(r.statistics, key) : null));
      const of = reports.map((r) => (r.statistics ? (proportionsOf(r.statistics)[key] ?? null) : null));
      const intervals = reports.map((r) => r.uncertainty?.intervals[key] ?? null);
      // A rate with no denominator has no value to subtract (the reference's 0 is not a measurement).
      const undefinedAt = (i: number): boolean => of[i] !== null && of[i]!.n === 0;
      return {
        key,
        label,
        baseline: values[0]!,
        values: values.slice(1),
        deltas: values.slice(1).map((v, i) => (undefinedAt(0) || undefinedAt(i + 1) || v === null || values[0] === null ? null : v - values[0]!)),
        of,
        intervals,
      };
    });
    const paired = rest.map((m) => pairedComparison([...base].filter(([k]) => m.has(k)).map(([k, b]) => [b.verdict, m.get(k)!.verdict] as const)));

    // Only samples the baseline shares with another run are compared: one that a run lacks is
    // no change of verdict, and a row of the baseline alone compares nothing.
    const keys = [...base.keys()].filter((k) => rest.some((m) => m.has(k)));
    keys.sort((a, b) => base.get(a)!.row.index - base.get(b)!.row.index);
    const counts = others.map(() => ({ fixed: 0, regressed: 0, changed: 0, same: 0 }));
    const rows: CompareResult['rows'] = [];
    for (const key of keys) {
      const b = base.get(key)!;
      const outputs = rest.map((m) => m.get(key));
      const labels = outputs.map((o) => verdictLabel(o?.verdict ?? null));
      const baseLabel = verdictLabel(b.verdict);
      const changes = labels.map((label, i) => {
        if (outputs[i] === undefined) return 'absent' as const;
        const change = label === baseLabel ? 'same' : label === 'correct' ? 'fixed' : baseLabel === 'correct' ? 'regressed' : 'changed';
        counts[i]![change]++;
        return change;
      });
      const steps = compareSteps([b.verdict, ...outputs.map((o) => (o === undefined ? undefined : o.verdict))], b.stepEndpoints ?? outputs.find((o) => o?.stepEndpoints)?.stepEndpoints);
      // A multi-step sample whose verdict stayed but whose steps did not (it now fails at another step) is a change too.
      const unchanged = (c: string): boolean => c === 'same' || c === 'absent';
      if (input.changedOnly && changes.every(unchanged) && (steps ?? []).every((s) => s.changes.every(unchanged))) continue;
      rows.push({
        index: b.row.index,
        sampleId: b.row.sampleId,
        api: b.row.api,
        task: b.row.task,
        baseline: baseLabel,
        others: labels,
        changes,
        indexes: [b, ...outputs].map((o) => o?.row.index ?? null),
        overridden: [b, ...outputs].map((o) => o?.row.overridden ?? false),
        ...withSteps(steps),
      });
    }
    return {
      baseline: this.summary(baseline),
      runs: others.map((r) => this.summary(r)),
      metrics,
      counts,
      total: rows.length,
      rows: rows.slice(input.offset, input.offset + input.limit),
      alignment: { by, runs },
      paired,
      pairedStatistics: PAIRED_STATISTIC,
      ...(input.candidates ? { candidates: await this.candidates(baseline) } : {}),
    };
  }

  /** The first output of each sample (n > 1 compares attempt 0) of each run, keyed by the identity the runs align by. */
  private async aligned(all: readonly RunRow[]): Promise<{ by: CompareResult['alignment']['by']; maps: Map<string, IndexedOutput>[] }> {
    const indexes = await Promise.all(all.map((r) => this.index(r)));
    const { by, identity } = alignmentOf(all, indexes);
    const maps = indexes.map((index, r) => {
      const map = new Map<string, IndexedOutput>();
      const seen = new Map<string, number>();
      for (const o of index.outputs) {
        if (o.row.attempt !== 0) continue;
        const id = identity(all[r]!, o);
        // Two samples of one run with the same content: the nth pairs with the other run's nth.
        const nth = seen.get(id) ?? 0;
        seen.set(id, nth + 1);
        map.set(nth === 0 ? id : `${id}#${nth}`, o);
      }
      return map;
    });
    return { by, maps };
  }

  /** Every other run with outputs and how many samples it shares with the baseline (as compareRuns would pair them), most first. */
  private async candidates(baseline: RunRow): Promise<NonNullable<CompareResult['candidates']>> {
    const out: NonNullable<CompareResult['candidates']> = [];
    for (const r of this.ctx.runs.list()) {
      if (r.id === baseline.id || r.done === 0) continue;
      const { by, maps } = await this.aligned([baseline, r]);
      out.push({ runId: r.id, shared: [...maps[1]!.keys()].filter((k) => maps[0]!.has(k)).length, by });
    }
    return out.sort((a, b) => b.shared - a.shared || b.runId - a.runId);
  }

  async exportRun(input: Parsed<'exportRun'>): Promise<Output<'exportRun'>> {
    const run = this.run(input.runId);
    const index = await this.index(run);
    const report = await this.report(run);
    const inputs = new Map(this.ctx.runs.inputs(run.id).map((i) => [i.index, i]));
    const outputs = index.outputs.map((o) => {
      const stored = this.ctx.runs.output(run.id, o.row.index, o.row.attempt);
      const request = stored?.request ? (JSON.parse(stored.request) as { method?: unknown; url?: unknown }) : null;
      const expected = inputs.get(o.row.index)?.config;
      return {
        row: o.row,
        verdict: o.verdict,
        scorerVerdict: stored && stored.error === null ? (JSON.parse(stored.verdict) as Verdict | null) : null,
        code: stored?.code ?? '',
        expected: expected ? { url: expected.url, method: expected.method } : null,
        captured: request && typeof request.url === 'string' && typeof request.method === 'string' ? { url: request.url, method: request.method } : null,
        overrideReason: o.overrideReason,
      };
    });
    return { files: exportRunFiles(input.format, this.summary(run), report, outputs) };
  }
}

const describeRun = (r: RunSummary): string => `run ${r.id} on "${r.dataset}"`;

/** Compare's rows beside the headline when a run has multi-step samples. */
const STEP_METRICS = [
  ['Correct steps (t)', 'steps_correct_wrt_total'],
  ['Carried values correct (t)', 'carried_correct_wrt_total'],
] as const;
const withSteps = (steps: CompareResult['rows'][number]['steps']): Pick<CompareResult['rows'][number], 'steps'> => (steps ? { steps } : {});

/**
 * How two or more runs' samples are paired. Runs of one stored dataset: by sample id, so a sample
 * edited between the runs still pairs (the page says the dataset changed). Runs of different stored
 * datasets: by the snapshot's content hash of {task, config}, the same sample wherever it lives.
 * Runs of dataset files (no snapshot): by position, and only within one file.
 */
function alignmentOf(runs: readonly RunRow[], indexes: readonly RunIndex[]): { by: CompareResult['alignment']['by']; identity: (run: RunRow, o: IndexedOutput) => string } {
  const datasets = new Set(runs.map((r) => r.datasetId));
  if (!datasets.has(null) && datasets.size === 1) return { by: 'sample id', identity: (_run, o) => (o.row.sampleId !== null ? `id:${o.row.sampleId}` : `at:${o.row.index}`) };
  if (indexes.every((i) => i.outputs.every((o) => o.contentHash !== null))) return { by: 'content hash', identity: (_run, o) => `hash:${o.contentHash}` };
  return { by: 'position', identity: (run, o) => `${run.datasetId ?? run.dataset}#${o.row.index}` };
}

function matcher(filter: RunSampleFilter): (o: IndexedOutput) => boolean {
  const text = filter.text?.trim().toLowerCase();
  const endpoint = filter.endpoint?.trim().toLowerCase();
  const inSet = <T>(values: readonly T[] | undefined, v: T | null): boolean => !values || values.length === 0 || (v !== null && values.includes(v));
  return (o) =>
    inSet(filter.sampleVerdicts, o.row.sample_verdict) &&
    inSet(filter.errorVerdicts, o.row.error_verdict) &&
    inSet(filter.endpointVerdicts, o.row.endpoint_verdict) &&
    inSet(filter.apis, o.row.api) &&
    (!filter.argumentVerdicts || filter.argumentVerdicts.length === 0 || filter.argumentVerdicts.some((v) => o.argumentVerdicts.has(v))) &&
    (!endpoint || o.row.endpoint.toLowerCase().includes(endpoint)) &&
    (!text || o.haystack.includes(text)) &&
    (filter.overridden === undefined || o.row.overridden === filter.overridden) &&
    (filter.errored === undefined || (o.row.error !== null) === filter.errored) &&
    (!filter.failures || filter.failures.length === 0 || filter.failures.some((f) => o.failures?.includes(f) === true));
}
