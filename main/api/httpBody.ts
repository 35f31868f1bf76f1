import type http from 'node:http';

/** Why a body was not read: too large for one request (413), or the server's budget is spent (503). */
export type BodyRefusal = { readonly status: 413 | 503; readonly message: string };
export type BodyResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly refusal: BodyRefusal };

export interface BodyLimits {
  /** Bytes one request body may have. */
  readonly perRequest: number;
  /** Bytes all request bodies being buffered at once may hold together. */
  readonly total: number;
}

const mb = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * Buffers request bodies under two caps: one per request and one for all requests at once, so
 * many large uploads together cannot exhaust memory. A refused body is still read to its end
 * (and thrown away), so the client gets its 413/503 instead of a reset connection mid-upload.
 */
export class BodyReader {
  private buffered = 0;

  constructor(readonly limits: BodyLimits) {}

  /** Bytes held right now by bodies being read. */
  get inUse(): number {
    return this.buffered;
  }

  read(req: http.IncomingMessage): Promise<BodyResult> {
    const declared = Number(req.headers['content-length'] ?? NaN);
    let refusal: BodyRefusal | undefined;
    if (declared > this.limits.perRequest) refusal = this.tooLarge();
    let held = 0;
    const take = (bytes: number): boolean => {
      if (this.buffered + bytes > this.limits.total) return false;
      this.buffered += bytes;
      held += bytes;
      return true;
    };
    const release = (): void => {
      this.buffered -= held;
      held = 0;
    };
    // A declared length is reserved up front, so a request admitted here can always finish.
    if (!refusal && Number.isFinite(declared) && declared > 0 && !take(declared)) refusal = this.busy();
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        if (refusal) return;
        size += chunk.length;
        if (size > this.limits.perRequest) refusal = this.tooLarge();
        else if (size > held && !take(size - held)) refusal = this.busy();
        if (refusal) {
          chunks.length = 0;
          release();
        } else chunks.push(chunk);
      });
      req.on('end', () => {
        const text = refusal ? '' : Buffer.concat(chunks).toString('utf8');
        release();
        resolve(refusal ? { ok: false, refusal } : { ok: true, text });
      });
      // Aborted by the client: nobody is left to answer.
      req.on('close', () => {
        release();
        if (!req.complete) resolve({ ok: false, refusal: { status: 413, message: 'request aborted' } });
      });
    });
  }

  private tooLarge(): BodyRefusal {
    return { status: 413, message: `request body is larger than ${mb(this.limits.perRequest)}, the most one request may send` };
  }

  private busy(): BodyRefusal {
    return { status: 503, message: `the server is already reading ${mb(this.limits.total)} of request bodies; try again in a moment` };
  }
}
