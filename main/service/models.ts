import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Output, Parsed } from '../api/contract.js';
import type { Download, Model } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import { cachedSha256, downloadModelFile, fileStamp, isResumable, sourceFileName, inspectModel, isGgufFile, parametersLabel, type DownloadState, type MemoryState, type ModelFitEstimate, type ModelMetadata } from '../generation/index.js';
import type { ModelRepository, ModelRow } from '../store/models.js';

export interface ModelLibraryOptions {
  readonly models: ModelRepository;
  /** Where scans look and downloads go. */
  readonly folder: string;
  readonly memory?: MemoryState;
  readonly emit: (event: { type: 'modelsChanged' } | { type: 'downloadProgress'; downloadId: string; status: Download['status']; downloadedBytes: number; totalBytes: number; message?: string; file?: string; resumable?: boolean }) => void;
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';

interface ActiveDownload {
  info: Download;
  controller: AbortController;
  done: Promise<void>;
}

/** The model library: GGUF files added by path, found in the models folder, or downloaded. */
export class ModelLibrary {
  private readonly downloads = new Map<string, ActiveDownload>();
  /** Fit estimates are per machine state, so they are computed when asked and kept per file for the session. */
  private readonly fits = new Map<string, ModelFitEstimate>();

  constructor(private readonly options: ModelLibraryOptions) {}

  get folder(): string {
    return this.options.folder;
  }

  private toModel(row: ModelRow): Model {
    const m = row.metadata as unknown as ModelMetadata & { sizeBytes: number };
    let present = true;
    let sha: string | null = null;
    try {
      sha = this.options.models.cachedHash(row.path, fileStamp(row.path)) ?? null;
    } catch {
      present = false;
    }
    const fit = this.fits.get(row.path) ?? (row.metadata['fit'] as ModelFitEstimate | undefined) ?? null;
    return {
      id: row.id,
      name: row.name,
      path: row.path,
      sizeBytes: m.sizeBytes,
      sha256: sha,
      architecture: m.architecture,
      parameters: m.parameters,
      parametersLabel: parametersLabel(m.parameters),
      quantisation: m.quantisation,
      contextLength: m.contextLength,
      chatTemplate: m.chatTemplate,
      fit,
      source: row.source,
      addedAt: row.addedAt,
      present,
    };
  }

  listModels(): Model[] {
    return this.options.models.list().map((r) => this.toModel(r));
  }

  model(modelId: number): Model {
    const row = this.options.models.get(modelId);
    if (!row) throw new WapiiError('not_found', `model ${modelId} is not in the library`);
    return this.toModel(row);
  }

  /** The model file's sha-256 through the hash cache (hashed once per path and stamp: size, mtime, ctime, inode). */
  sha256(file: string): string {
    return cachedSha256(file, this.options.models);
  }

  /**
   * Reads a file's header, estimates the fit and stores it; refuses (bad_input, nothing stored) a
   * missing file, a file that is not GGUF, and a model that fits neither the GPU nor RAM.
   */
  async addModel(input: { path: string; source?: string }): Promise<Model> {
    const file = path.resolve(input.path);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new WapiiError('bad_input', code === 'ENOENT' || code === 'ENOTDIR' ? `model file not found: ${file}` : `cannot read ${file}: ${firstLine(error)}`);
    }
    // A device, FIFO or folder is never a model, and reading one may block or never end.
    if (!stat.isFile()) throw new WapiiError('bad_input', `${file} is not a regular file; a model is a .gguf file`);
    const known = this.options.models.byPath(file);
    if (known) return this.toModel(known);
    const name = path.basename(file).replace(/\.gguf$/i, '');
    // /proc files say "regular, 0 bytes" and some fail on read (/proc/self/mem: EIO): a read error is the user's file, not a bug.
    let gguf: boolean;
    try {
      gguf = isGgufFile(file);
    } catch (error) {
      throw new WapiiError('bad_input', `cannot read ${file}: ${firstLine(error)}`);
    }
    if (!gguf) throw new WapiiError('bad_input', `${path.basename(file)} is not a GGUF model file (it does not start with the GGUF magic bytes)`);
    let inspected;
    try {
      // Sized for a run's default parallel sequences where the model would run, each with its own cache.
      inspected = await inspectModel(file, this.options.memory ? { memory: this.options.memory } : {});
    } catch (error) {
      throw new WapiiError('bad_input', `${path.basename(file)}: cannot read its GGUF header: ${firstLine(error)}`);
    }
    if (!inspected.fit.fitsRam) throw new WapiiError('bad_input', `${name} ${inspected.fit.summary}`);
    this.fits.set(file, inspected.fit);
    // Added meanwhile (a second click, a scan beside a finishing download): that entry stands.
    const addedMeanwhile = this.options.models.byPath(file);
    if (addedMeanwhile) return this.toModel(addedMeanwhile);
    const sizeBytes = fs.statSync(file).size;
    const id = this.options.models.add({
      path: file,
      name,
      source: input.source ?? file,
      metadata: { ...inspected.metadata, sizeBytes, fit: inspected.fit },
    });
    this.options.emit({ type: 'modelsChanged' });
    return this.model(id);
  }

  /** The GGUF files of a folder and its subfolders (three levels), sorted by path. */
  private ggufFiles(input: { folder?: string | undefined }): { folder: string; files: string[] } {
    const folder = path.resolve(input.folder ?? this.options.folder);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new WapiiError('bad_input', `models folder not found: ${folder}`);
    // A subfolder that cannot be read (permissions) is passed over, not the whole listing.
    const entries = (dir: string): fs.Dirent[] => {
      try {
        return fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return [];
      }
    };
    const walk = (dir: string, depth: number): string[] =>
      entries(dir).flatMap((e) => (e.isDirectory() && depth < 3 ? walk(path.join(dir, e.name), depth + 1) : e.isFile() && /\.gguf$/i.test(e.name) ? [path.join(dir, e.name)] : []));
    return { folder, files: walk(folder, 0).sort() };
  }

  listModelFiles(input: Parsed<'listModelFiles'>): Output<'listModelFiles'> {
    const { folder, files } = this.ggufFiles(input);
    // A file still being downloaded is not offered: it is not a whole GGUF yet.
    const ready = files.filter((file) => this.downloading(file) === undefined);
    return { folder, files: ready.map((file) => ({ path: file, name: path.relative(folder, file), sizeBytes: fs.statSync(file).size, inLibrary: this.options.models.byPath(file) !== undefined })) };
  }

  async scanModels(input: Parsed<'scanModels'>): Promise<Output<'scanModels'>> {
    const { folder, files } = this.ggufFiles(input);
    const added: Model[] = [];
    const skipped: { path: string; reason: string }[] = [];
    for (const file of files) {
      if (this.options.models.byPath(file)) continue;
      try {
        added.push(await this.addModel({ path: file, source: `scan of ${folder}` }));
      } catch (error) {
        skipped.push({ path: file, reason: error instanceof WapiiError ? error.message : String(error) });
      }
    }
    return { folder, added, skipped };
  }

  removeModel(modelId: number): { removed: boolean } {
    const removed = this.options.models.remove(modelId);
    if (removed) this.options.emit({ type: 'modelsChanged' });
    return { removed };
  }

  listDownloads(): Download[] {
    return [...this.downloads.values()].map((d) => d.info);
  }

  /** Whether a model file is still being downloaded. */
  downloading(file: string): Download | undefined {
    return [...this.downloads.values()].find((d) => d.info.status === 'downloading' && d.info.file === file)?.info;
  }

  /**
   * Downloads into the models folder (main/generation/download.ts) and answers at once with the
   * download's id; progress, retries and the end come as downloadProgress events and in
   * listDownloads. Asking again for a cancelled source resumes it.
   */
  async downloadModel(input: Parsed<'downloadModel'>): Promise<Download> {
    const source = input.source.trim();
    if (!/^(https?:\/\/|hf:)/.test(source)) throw new WapiiError('bad_input', `download source must be an http(s) URL or an hf: reference, not "${source}"`);
    // The file lands in the models folder, nowhere else.
    if (input.filename !== undefined && (input.filename !== path.basename(input.filename) || input.filename.startsWith('.'))) {
      throw new WapiiError('bad_input', `download file name must be a plain file name inside the models folder, not "${input.filename}"`);
    }
    // One download per source: its partial file is keyed by the source, and two writers would interleave.
    const running = [...this.downloads.values()].find((d) => d.info.source === source && d.info.status === 'downloading');
    if (running) return running.info;
    try {
      fs.mkdirSync(this.options.folder, { recursive: true });
    } catch (error) {
      throw new WapiiError('bad_input', `cannot create the models folder ${this.options.folder}: ${firstLine(error)}`);
    }
    // Resuming a cancelled or failed download continues its row, under its id, rather than adding a second one.
    const earlier = [...this.downloads.values()].find((d) => d.info.source === source && (d.info.status === 'cancelled' || d.info.status === 'failed'));
    if (earlier) this.downloads.delete(earlier.info.id);
    const id = earlier?.info.id ?? randomBytes(6).toString('hex');
    const controller = new AbortController();
    const state: DownloadState = { file: path.join(this.options.folder, input.filename ?? (earlier ? path.basename(earlier.info.file) : undefined) ?? sourceFileName(source) ?? 'model.gguf'), downloadedBytes: earlier?.info.downloadedBytes ?? 0, totalBytes: earlier?.info.totalBytes ?? 0, message: undefined };
    const info: Download = { id, source, file: state.file, status: 'downloading', downloadedBytes: state.downloadedBytes, totalBytes: state.totalBytes, modelId: null, error: null, resumable: true };
    const active: ActiveDownload = { info, controller, done: Promise.resolve() };
    const report = (message?: string): void =>
      this.options.emit({ type: 'downloadProgress', downloadId: id, status: active.info.status, downloadedBytes: active.info.downloadedBytes, totalBytes: active.info.totalBytes, file: active.info.file, resumable: active.info.resumable ?? false, ...(message ? { message } : {}) });
    let shown = { bytes: -1, message: undefined as string | undefined };
    const refresh = (): void => {
      active.info = { ...active.info, file: state.file, downloadedBytes: state.downloadedBytes, totalBytes: state.totalBytes };
      if (active.info.downloadedBytes !== shown.bytes || state.message !== shown.message) report(state.message);
      shown = { bytes: active.info.downloadedBytes, message: state.message };
    };
    this.downloads.set(id, active);
    active.done = (async () => {
      const timer = setInterval(refresh, 250);
      try {
        const file = await downloadModelFile({ source, folder: this.options.folder, fileName: input.filename, signal: controller.signal, state });
        refresh();
        // The file is whole from here on: a failure to add it is not fixed by fetching it again.
        active.info = { ...active.info, resumable: false };
        const model = await this.addModel({ path: file, source });
        active.info = { ...active.info, file, status: 'finished', modelId: model.id };
        report();
      } catch (error) {
        const cancelled = controller.signal.aborted;
        const resumable = cancelled || (active.info.resumable !== false && isResumable(error));
        active.info = { ...active.info, file: state.file, status: cancelled ? 'cancelled' : 'failed', downloadedBytes: state.downloadedBytes, error: cancelled ? null : firstLine(error), resumable };
        report(active.info.error ?? undefined);
      } finally {
        clearInterval(timer);
      }
    })();
    report();
    return info;
  }

  async cancelDownload(downloadId: string): Promise<Download> {
    const active = this.downloads.get(downloadId);
    if (!active) throw new WapiiError('not_found', `download ${downloadId} does not exist`);
    if (active.info.status !== 'downloading') return active.info;
    active.controller.abort();
    // The abort ends the request and its stream at once; a stuck file system must not hold the caller.
    await Promise.race([active.done, new Promise((r) => setTimeout(r, 10_000).unref())]);
    if (active.info.status === 'downloading') active.info = { ...active.info, status: 'cancelled' };
    return active.info;
  }

  /** Drops an ended download's row; a running one must be cancelled first. */
  dismissDownload(downloadId: string): { dismissed: boolean } {
    const active = this.downloads.get(downloadId);
    if (!active) return { dismissed: false };
    if (active.info.status === 'downloading') throw new WapiiError('conflict', `download ${downloadId} is still running; cancel it before dismissing it`);
    this.downloads.delete(downloadId);
    return { dismissed: true };
  }

  /** Waits for a download to end (tests, shutdown). */
  async settled(downloadId: string): Promise<Download> {
    const active = this.downloads.get(downloadId);
    if (!active) throw new WapiiError('not_found', `download ${downloadId} does not exist`);
    await active.done;
    return active.info;
  }

  async shutdown(): Promise<void> {
    for (const d of this.downloads.values()) if (d.info.status === 'downloading') await this.cancelDownload(d.info.id).catch(() => undefined);
  }
}
