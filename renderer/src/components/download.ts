/** Hands a file to the browser (or Electron) as a download. */
export function saveFile(name: string, content: BlobPart, type = 'text/plain'): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Text files (named by their paths) as one ustar archive, so a code folder is one download rather than
 * hundreds. Written here rather than with an archive library: no such library is a dependency,
 * and an uncompressed tar is a 512-byte header per file.
 */
export function tar(files: Record<string, string>): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const field = (header: Uint8Array, offset: number, length: number, value: string): void => header.set(encoder.encode(value).subarray(0, length), offset);
  const octal = (n: number, length: number): string => n.toString(8).padStart(length - 1, '0') + '\0';
  const now = Math.floor(Date.now() / 1000);
  for (const [name, text] of Object.entries(files)) {
    const body = encoder.encode(text);
    const header = new Uint8Array(512);
    field(header, 0, 100, name);
    field(header, 100, 8, octal(0o644, 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(body.length, 12));
    field(header, 136, 12, octal(now, 12));
    field(header, 148, 8, '        ');
    field(header, 156, 1, '0');
    field(header, 257, 6, 'ustar\0');
    field(header, 263, 2, '00');
    const checksum = header.reduce((a, b) => a + b, 0);
    field(header, 148, 8, checksum.toString(8).padStart(6, '0') + '\0 ');
    chunks.push(header, body, new Uint8Array((512 - (body.length % 512)) % 512));
  }
  chunks.push(new Uint8Array(1024));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
