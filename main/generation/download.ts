import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Model downloads, written here on node:http rather than through node-llama-cpp's downloader
 * (ipull): a download server is untrusted, and each of these needs control ipull does not give —
 * an early close must fail the download, not throw later out of a stream; a refused connection or a
 * redirect to file: must fail at once, and retries be few and shown; the Hugging Face token must go
 * to the configured endpoint over https only, never across a redirect to another origin; a
 * resume must carry If-Range (or, from a server that gives no validator, match the file's length),
 * so a file changed on the server is fetched again, not stitched; and
 * a finished file must never replace one already there.
 */

/** What a download shows while it runs; the model library polls it. */
export interface DownloadState {
  /** Where the file lands once complete (a guess until the server names it). */
  file: string;
  downloadedBytes: number;
  /** 0 while unknown. */
  totalBytes: number;
  /** The last retry or note, for the user. */
  message: string | undefined;
}

export interface DownloadOptions {
  /** An http(s) URL, or an `hf:user/repo/file.gguf[#branch]` reference. */
  readonly source: string;
  readonly folder: string;
  /** The file name wanted; else the server's (Content-Disposition), else the URL's last segment. */
  readonly fileName?: string | undefined;
  readonly signal: AbortSignal;
  readonly state: DownloadState;
  /** The Hugging Face endpoint `hf:` references resolve on; default MODEL_ENDPOINT, HF_ENDPOINT, https://huggingface.co/. */
  readonly hfEndpoint?: string | undefined;
  /** The Hugging Face token; default HF_TOKEN. Never read from another tool's files. */
  readonly hfToken?: string | undefined;
  /** Tries after the first, for a dropped connection or a 5xx answer (default 3). */
  readonly retries?: number;
  /** The wait before retry n (1-based); default 1, 2, 4 s. */
  readonly retryDelayMs?: (retry: number) => number;
  /** How long a connection may send nothing before it counts as dropped (default 30 s). */
  readonly idleTimeoutMs?: number;
  /** Extra certificate authorities to trust (tests: a self-signed local server). */
  readonly ca?: string | Buffer | undefined;
}

/** A failure that no retry can fix (a refused connection, a 404, a redirect to file:). */
class FinalError extends Error {}

/**
 * How a download ends when it fails: `resumable` false where asking again gets the same answer
 * (a 404, a redirect to file:, a source that names nothing), true where a later try may go on
 * (a dropped or refused connection, a 5xx).
 */
export class DownloadFailure extends Error {
  constructor(
    message: string,
    readonly resumable: boolean,
  ) {
    super(message);
    this.name = 'DownloadFailure';
  }
}

const MAX_REDIRECTS = 10;

export function defaultHfEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const configured = [env['MODEL_ENDPOINT'], env['HF_ENDPOINT']].find((e) => e && /^https?:\/\//.test(e));
  return configured ?? 'https://huggingface.co/';
}

/**
 * What a source names: a URL; `hf:user/repo/path/file.gguf[#branch]`, a file on the endpoint; or
 * `hf:user/repo[:quant]`, whose file the endpoint's manifest names (as llama.cpp resolves it).
 */
export type ResolvedSource = { readonly url: string } | { readonly manifest: string; readonly user: string; readonly repo: string };

export function resolveSource(source: string, endpoint: string): ResolvedSource {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  const encode = (p: string): string => p.split('/').map(encodeURIComponent).join('/');
  const file = /^(?:hf|huggingface):(?:\/\/)?([^/\s#:]+)\/([^/\s#:]+)\/([^#\s]+)(?:#(\S+))?$/.exec(source);
  if (file) {
    const [, user, repo, name, branch] = file as unknown as [string, string, string, string, string | undefined];
    return { url: `${base}${encodeURIComponent(user)}/${encodeURIComponent(repo)}/resolve/${encodeURIComponent(branch ?? 'main')}/${encode(name)}` };
  }
  const tagged = /^(?:hf|huggingface):(?:\/\/)?([^/\s#:]+)\/([^/\s#:]+)(?::([\w.-]+))?$/.exec(source);
  if (tagged) {
    const [, user, repo, tag] = tagged as unknown as [string, string, string, string | undefined];
    return { manifest: `${base}v2/${encodeURIComponent(user)}/${encodeURIComponent(repo)}/manifests/${encodeURIComponent(tag ?? 'latest')}`, user, repo };
  }
  if (/^(?:hf|huggingface):/.test(source)) throw new FinalError(`cannot resolve ${source}: write hf:user/repo/file.gguf or hf:user/repo:quant`);
  return { url: source };
}

/**
 * The file name a source names before any server answers, for a row to show at once: a URL's or an
 * `hf:` file's last segment, or the repository of an `hf:user/repo:quant` reference.
 */
export function sourceFileName(source: string): string | undefined {
  const tagged = /^(?:hf|huggingface):(?:\/\/)?[^/\s#:]+\/([^/\s#:]+)(?::([\w.-]+))?$/.exec(source);
  if (tagged) return safeFileName(tagged[2] ? `${tagged[1]}-${tagged[2]}` : (tagged[1] ?? ''));
  const last = source.replace(/[?#].*$/, '').split('/').pop() ?? '';
  try {
    return safeFileName(decodeURIComponent(last));
  } catch {
    return safeFileName(last);
  }
}

/**
 * Whether a request may carry the Hugging Face token: over https, to the configured endpoint's
 * exact origin (scheme, host and port), and only while no redirect has left that origin (as
 * browsers, curl and requests drop credentials on a cross-origin redirect).
 */
export function mayCarryToken(url: URL, endpoint: string, crossedOrigin: boolean): boolean {
  const allowed = new URL(endpoint);
  return !crossedOrigin && url.protocol === 'https:' && allowed.protocol === 'https:' && url.origin === allowed.origin;
}

/** Whether asking again for a failed download's source may go on (see DownloadFailure). */
export const isResumable = (error: unknown): boolean => (error instanceof DownloadFailure ? error.resumable : !(error instanceof FinalError));

/** A file name from a server or a URL, made safe: no folders, no leading dot, no control characters. */
export function safeFileName(name: string): string | undefined {
  const base = [...name].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('').split(/[/\\]/).pop()?.trim() ?? '';
  const clean = base.replace(/^\.+/, '');
  return clean === '' ? undefined : clean.slice(0, 200);
}

function contentDispositionName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      return undefined;
    }
  }
  return /filename\s*=\s*(?:"([^"]*)"|([^;]+))/.exec(header)?.slice(1).find((v) => v !== undefined)?.trim();
}

/** `name (1).gguf`, `name (2).gguf`, ...: the n-th alternative to a taken name. */
export function numberedName(name: string, n: number): string {
  const ext = path.extname(name);
  return n === 0 ? name : `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

/**
 * Moves a finished partial file to `name` in `folder`, or to the first free `name (n)`: link()
 * fails when the target exists, so no file already there, nor one that appeared a moment ago, is
 * ever replaced.
 */
export function placeWithoutOverwrite(partial: string, folder: string, name: string): string {
  for (let n = 0; ; n++) {
    const target = path.join(folder, numberedName(name, n));
    try {
      fs.linkSync(partial, target);
      fs.rmSync(partial, { force: true });
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** What a partial download remembers, beside it, to resume only the same file. */
interface PartialMeta {
  readonly source: string;
  readonly url: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly totalBytes: number;
  readonly name: string;
}

/** Where the partial file of a source lives: keyed by the source, so asking again for it resumes it and no other download writes to it. */
export function partialPath(folder: string, source: string): string {
  return path.join(folder, '.partial', `${createHash('sha256').update(source).digest('hex').slice(0, 24)}.part`);
}

function readMeta(file: string): PartialMeta | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PartialMeta;
  } catch {
    return undefined;
  }
}

interface Answer {
  readonly response: http.IncomingMessage;
  readonly url: URL;
}

const kib = (n: number): string => (n < 2 ** 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 2 ** 20).toFixed(1)} MiB`);

/** Why a request failed, in a few words, and whether trying again could help. */
function describe(error: unknown): { message: string; final: boolean } {
  if (error instanceof FinalError) return { message: error.message, final: true };
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  // Nothing listens, or the name does not resolve: the next try finds the same.
  if (code === 'ECONNREFUSED') return { message: `connection refused (${message.replace(/^connect /, '')})`, final: true };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { message: `host not found (${message})`, final: true };
  if (code && /^(ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code)) return { message: `TLS: ${message}`, final: true };
  return { message, final: false };
}

/**
 * Downloads a model file into `folder` and returns where it landed. Cancelled through `signal`
 * (the partial file is kept, and asking again for the same source resumes it); every error ends
 * as a rejected promise with a one-line message, none escapes.
 */
export async function downloadModelFile(options: DownloadOptions): Promise<string> {
  const endpoint = options.hfEndpoint ?? defaultHfEndpoint();
  const token = options.hfToken ?? process.env['HF_TOKEN'];
  const retries = options.retries ?? 3;
  const delay = options.retryDelayMs ?? ((n: number) => 1000 * 2 ** (n - 1));
  const idle = options.idleTimeoutMs ?? 30_000;
  const { state, signal } = options;
  const resolved = resolveSource(options.source, endpoint);
  const partial = partialPath(options.folder, options.source);
  const metaFile = `${partial}.json`;
  fs.mkdirSync(path.dirname(partial), { recursive: true });
  const wanted = options.fileName ? safeFileName(options.fileName) : undefined;

  /** One GET, following redirects by hand: only to http(s), and the token never past another origin. */
  const request = (startUrl: URL, headers: Record<string, string>): Promise<Answer> =>
    new Promise<Answer>((resolve, reject) => {
      let url = startUrl;
      let crossed = false;
      const go = (hop: number): void => {
        if (signal.aborted) return reject(signal.reason as Error);
        const send = { 'User-Agent': 'wapii-workbench', ...headers, ...(token && mayCarryToken(url, endpoint, crossed) ? { Authorization: `Bearer ${token}` } : {}) };
        const lib = url.protocol === 'https:' ? https : http;
        const req = lib.get(url, { headers: send, signal, ...(options.ca && url.protocol === 'https:' ? { ca: options.ca } : {}) }, (res) => {
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && res.headers.location) {
            res.resume();
            let next: URL;
            try {
              next = new URL(res.headers.location, url);
            } catch {
              return reject(new FinalError(`the server redirected to an invalid URL: ${res.headers.location.slice(0, 200)}`));
            }
            if (next.protocol !== 'http:' && next.protocol !== 'https:') return reject(new FinalError(`the server redirected to ${next.href.slice(0, 200)}; only http(s) redirects are followed`));
            if (hop >= MAX_REDIRECTS) return reject(new FinalError(`more than ${MAX_REDIRECTS} redirects`));
            if (next.origin !== url.origin) crossed = true;
            url = next;
            return go(hop + 1);
          }
          resolve({ response: res, url });
        });
        req.setTimeout(idle, () => req.destroy(new Error(`no answer for ${idle / 1000} s`)));
        req.on('error', reject);
      };
      go(0);
    });

  /** The file a `hf:user/repo:quant` reference means, from the endpoint's manifest (llama.cpp's User-Agent asks for its ggufFile). */
  const fromManifest = async (manifest: string, user: string, repo: string): Promise<string> => {
    const { response: res, url } = await request(new URL(manifest), { 'User-Agent': 'llama-cpp', Accept: 'application/json' });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 2 ** 20) throw new FinalError(`the manifest at ${url.href.slice(0, 200)} is larger than 1 MB`);
      chunks.push(chunk);
    }
    if (res.statusCode !== 200) throw new FinalError(`the server answered ${res.statusCode ?? 0} for ${url.href.slice(0, 200)}: no such model or quantisation`);
    let name: unknown;
    try {
      name = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ggufFile?: { rfilename?: unknown } }).ggufFile?.rfilename;
    } catch {
      name = undefined;
    }
    if (typeof name !== 'string' || name === '' || name.split('/').some((p) => p === '' || p === '.' || p === '..')) throw new FinalError(`the manifest at ${url.href.slice(0, 200)} names no GGUF file`);
    const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
    return `${base}${encodeURIComponent(user)}/${encodeURIComponent(repo)}/resolve/main/${name.split('/').map(encodeURIComponent).join('/')}`;
  };
  const startUrl = new URL('url' in resolved ? resolved.url : await fromManifest(resolved.manifest, resolved.user, resolved.repo));
  if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:') throw new FinalError(`cannot download ${options.source}: only http(s) URLs and hf: references`);
  const urlName = safeFileName(decodeURIComponent(startUrl.pathname.split('/').pop() ?? '')) ?? 'model.gguf';
  state.file = path.join(options.folder, wanted ?? urlName);

  /** One attempt: resume where the partial file ends when the server confirms it is the same file, else start over. */
  const attempt = async (): Promise<'done'> => {
    const meta = readMeta(metaFile);
    const have = meta && meta.source === options.source && fs.existsSync(partial) ? fs.statSync(partial).size : 0;
    // If-Range takes a strong ETag or a date. Without either (as curl -C -) the range is asked for
    // plainly and the answer's total length must be the one the partial file was written against.
    const validator = meta?.etag && !meta.etag.startsWith('W/') ? meta.etag : (meta?.lastModified ?? null);
    const resume = have > 0 && meta !== undefined && (validator !== null || meta.totalBytes > have);
    const { response: res, url } = await request(startUrl, resume ? { Range: `bytes=${have}-`, ...(validator !== null ? { 'If-Range': validator } : {}) } : {});
    const status = res.statusCode ?? 0;
    if (status === 416 && resume && meta && meta.totalBytes === have) {
      res.resume();
      return 'done';
    }
    if (status !== 200 && status !== 206) {
      res.resume();
      const message = `the server answered ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} for ${url.href.slice(0, 200)}`;
      throw status >= 500 || status === 429 || status === 408 ? new Error(message) : new FinalError(message);
    }
    const etag = res.headers.etag ?? null;
    const lastModified = res.headers['last-modified'] ?? null;
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
    // A 206 must continue exactly where the file ends and be the version we have (a server that ignores If-Range).
    // The length check stands in for a validator, and backs one: a file of another length is another file.
    const sameLength = meta !== undefined && meta.totalBytes > 0 ? range !== null && range[3] !== '*' && Number(range[3]) === meta.totalBytes : validator !== null;
    const continues = status === 206 && resume && range !== null && Number(range[1]) === have && (meta?.etag === null || etag === null || etag === meta?.etag) && (meta?.lastModified === null || lastModified === null || lastModified === meta?.lastModified) && sameLength;
    if (status === 206 && !continues) {
      res.resume();
      fs.rmSync(partial, { force: true });
      fs.rmSync(metaFile, { force: true });
      throw new Error('the server sent a part of another version of the file; starting over');
    }
    const start = continues ? have : 0;
    const length = Number(res.headers['content-length'] ?? NaN);
    const total = continues && range?.[3] !== '*' ? Number(range?.[3]) : Number.isFinite(length) ? start + length : 0;
    if (start === 0 && have > 0) state.message = resume ? (validator !== null ? 'the file changed on the server since the partial download; starting over' : 'the server sent the whole file, not the rest of it; starting over') : 'the server gave no ETag, Last-Modified or length to resume by; starting over';
    const name = wanted ?? safeFileName(contentDispositionName(res.headers['content-disposition']) ?? '') ?? meta?.name ?? urlName;
    state.file = path.join(options.folder, name);
    state.totalBytes = total;
    state.downloadedBytes = start;
    fs.writeFileSync(metaFile, JSON.stringify({ source: options.source, url: url.href, etag, lastModified, totalBytes: total, name } satisfies PartialMeta));
    res.setTimeout(idle, () => res.destroy(new Error(`no data for ${idle / 1000} s`)));
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        state.downloadedBytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(res, count, fs.createWriteStream(partial, { flags: continues ? 'a' : 'w' }), { signal });
    const size = fs.statSync(partial).size;
    if (total > 0 && size !== total) throw new Error(`the server closed the connection after ${kib(size - start)} of ${kib(total - start)}`);
    return 'done';
  };

  for (let retry = 0; ; retry++) {
    try {
      await attempt();
      break;
    } catch (error) {
      if (signal.aborted) throw new Error('cancelled');
      const why = describe(error);
      const premature = (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || /aborted|terminated|socket hang up|ECONNRESET/i.test(why.message);
      // What reached the partial file is what a resume continues from: a chunk still in the socket's
      // buffer when the close tore the pipeline down was counted by no one.
      if (premature && fs.existsSync(partial)) state.downloadedBytes = fs.statSync(partial).size;
      const message = premature ? `the server closed the connection after ${kib(state.downloadedBytes)}${state.totalBytes ? ` of ${kib(state.totalBytes)}` : ''}` : why.message;
      if (why.final || retry >= retries) throw new DownloadFailure(retry > 0 ? `${message} (after ${retry} ${retry === 1 ? 'retry' : 'retries'})` : message, !(error instanceof FinalError));
      const wait = delay(retry + 1);
      state.message = `${message}; retry ${retry + 1} of ${retries} in ${Math.round(wait / 100) / 10} s`;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) throw new Error('cancelled');
    }
  }
  const meta = readMeta(metaFile);
  const target = placeWithoutOverwrite(partial, options.folder, meta?.name ?? path.basename(state.file));
  fs.rmSync(metaFile, { force: true });
  state.file = target;
  state.message = undefined;
  return target;
}
