import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};
/** Text compresses 3 to 5 times; images and fonts are compressed already. */
const COMPRESSIBLE: ReadonlySet<string> = new Set(['.html', '.js', '.css', '.svg', '.json']);

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

interface Entry {
  readonly key: string;
  readonly raw: Buffer;
  readonly etag: string;
  readonly encoded: Map<'br' | 'gzip', Promise<Buffer>>;
}

export type StaticAnswer =
  | { readonly kind: 'missing' }
  | { readonly kind: 'file'; readonly status: 200 | 304; readonly headers: Record<string, string>; readonly body: Buffer | undefined };

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none. */
export function pickEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
  const offered = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    offered.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (name: string): boolean => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : undefined;
}

/**
 * The renderer's built files as `serve` sends them: compressed (brotli or gzip, as the browser
 * accepts; each file compressed once and kept while its size and mtime stay), and cacheable:
 * Vite names every asset by its content hash, so `/assets/*` is kept for a year and never
 * revalidated; the page itself (`index.html`, which names the current assets) is revalidated on
 * each load by its ETag. `private`: the files are served behind the access token.
 */
export class StaticFiles {
  private readonly cache = new Map<string, Entry>();
  private readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The file for a request path: the file itself when inside the root, else `index.html` (the app's routes). */
  async answer(pathname: string, req: Pick<http.IncomingMessage, 'headers'>): Promise<StaticAnswer> {
    const target = path.resolve(this.root, '.' + pathname);
    const inside = target.startsWith(this.root + path.sep);
    const statOf = async (file: string): Promise<fs.Stats | undefined> => {
      const stat = await fs.promises.stat(file).catch(() => undefined);
      return stat?.isFile() ? stat : undefined;
    };
    let file = target;
    let stat = inside ? await statOf(target) : undefined;
    if (!stat) {
      file = path.join(this.root, 'index.html');
      stat = await statOf(file);
      if (!stat) return { kind: 'missing' };
    }
    const entry = await this.entry(file, stat);
    const ext = path.extname(file);
    const hashed = path.relative(this.root, file).startsWith(`assets${path.sep}`);
    const headers: Record<string, string> = {
      'Content-Type': MIME[ext] ?? 'application/octet-stream',
      'Cache-Control': hashed ? 'private, max-age=31536000, immutable' : 'private, no-cache',
      ETag: entry.etag,
      Vary: 'Accept-Encoding',
    };
    if (req.headers['if-none-match'] === entry.etag) return { kind: 'file', status: 304, headers, body: undefined };
    const encoding = COMPRESSIBLE.has(ext) ? pickEncoding(req.headers['accept-encoding']) : undefined;
    if (!encoding) return { kind: 'file', status: 200, headers: { ...headers, 'Content-Length': String(entry.raw.length) }, body: entry.raw };
    let encoded = entry.encoded.get(encoding);
    if (!encoded) {
      encoded = encoding === 'br' ? brotli(entry.raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }) : gzip(entry.raw, { level: 9 });
      entry.encoded.set(encoding, encoded);
    }
    const body = await encoded;
    return { kind: 'file', status: 200, headers: { ...headers, 'Content-Encoding': encoding, 'Content-Length': String(body.length) }, body };
  }

  private async entry(file: string, stat: fs.Stats): Promise<Entry> {
    const key = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    const cached = this.cache.get(file);
    if (cached?.key === key) return cached;
    const raw = await fs.promises.readFile(file);
    const entry: Entry = { key, raw, etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`, encoded: new Map() };
    this.cache.set(file, entry);
    return entry;
  }
}
