import fs from 'node:fs';
import path from 'node:path';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';

const reason = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file or directory';
  if (e.code === 'EACCES') return 'permission denied';
  if (e.code === 'EISDIR') return 'is a directory, not a file';
  if (e.code === 'ENOTDIR') return 'is not a directory';
  return e.message;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The byte offset of the first byte that is not valid UTF-8. TextDecoder only says that one
 * exists; a lenient decode marks it with U+FFFD, and the bytes before it re-encode to the same
 * length, so the first U+FFFD that the file did not spell out (EF BF BD) is the place.
 */
function invalidUtf8Offset(bytes: Buffer): number {
  const lenient = bytes.toString('utf8');
  for (let i = lenient.indexOf('\uFFFD'); i !== -1; i = lenient.indexOf('\uFFFD', i + 1)) {
    const offset = Buffer.byteLength(lenient.slice(0, i));
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
  }
  return -1;
}

/** Decodes UTF-8 strictly: bytes that are not UTF-8 are refused, never stored as U+FFFD. */
export function decodeUtf8(bytes: Buffer, file: string): Result<string> {
  try {
    return ok(strictUtf8.decode(bytes));
  } catch {
    const offset = invalidUtf8Offset(bytes);
    const line = bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
    const byte = bytes[offset]?.toString(16).padStart(2, '0') ?? '??';
    return fail('bad_input', `${file} is not valid UTF-8: byte 0x${byte} at offset ${offset} (line ${line}); save it as UTF-8`);
  }
}

export function readFileInput(file: string): Result<FileInput> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    return fail('bad_input', `cannot read ${file}: ${reason(error)}`);
  }
  const content = decodeUtf8(bytes, file);
  return content.ok ? ok({ filename: path.basename(file), content: content.value }) : content;
}

/** Every `*.yaml`, `*.yml` and `*.json` file in a folder, read as spec candidates. */
export function readSpecDir(dir: string): Result<FileInput[]> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((f) => /\.(ya?ml|json)$/i.test(f)).sort();
  } catch (error) {
    return fail('bad_input', `cannot read spec folder ${dir}: ${reason(error)}`);
  }
  if (names.length === 0) return fail('bad_input', `spec folder ${dir} holds no .yaml, .yml or .json file`);
  const files: FileInput[] = [];
  for (const name of names) {
    const file = readFileInput(path.join(dir, name));
    if (!file.ok) return file;
    files.push(file.value);
  }
  return ok(files);
}

/** `0007.js` or the reference's `0007_code.js`, by the sample's position in the dataset file. */
export function readCodeDir(dir: string): Result<Map<number, string>> {
  const codes = new Map<number, string>();
  try {
    for (const name of fs.readdirSync(dir)) {
      const match = /^(\d+)(?:_code)?\.js$/.exec(name);
      if (match?.[1]) codes.set(Number(match[1]), fs.readFileSync(path.join(dir, name), 'utf8'));
    }
  } catch (error) {
    return fail('bad_input', `cannot read code folder ${dir}: ${reason(error)}`);
  }
  if (codes.size === 0) return fail('bad_input', `code folder ${dir} holds no NNNN.js or NNNN_code.js file`);
  return ok(codes);
}

export function writeFiles(target: string, files: Record<string, string>): Result<string[]> {
  const entries = Object.entries(files);
  try {
    if (entries.length === 1 && target.endsWith('.json')) {
      fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
      fs.writeFileSync(target, entries[0]?.[1] ?? '');
      return ok([target]);
    }
    fs.mkdirSync(target, { recursive: true });
    return ok(entries.map(([name, content]) => {
      const file = path.join(target, name);
      fs.writeFileSync(file, content);
      return file;
    }));
  } catch (error) {
    return fail('bad_input', `cannot write ${target}: ${reason(error)}`);
  }
}
