import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { InputError } from '../input/errors.js';

/*
 * Reading a user's input file as bytes, bounded, and decoding it as strict UTF-8.
 * Only regular files are read: a FIFO with no writer would block forever and a device such as
 * /dev/zero never ends. Invalid UTF-8 is refused with its byte offset rather than replaced,
 * because replacement characters would silently change the prefix the model is sent.
 */

/** Largest session or task file read (bytes): far above any real conversation, well below V8's string limit. */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

export interface ReadLimits {
  /** Refuse input larger than this many bytes; default MAX_INPUT_BYTES. */
  maxBytes?: number;
}

export function limitOf(limits: ReadLimits | undefined): number {
  const max = limits?.maxBytes ?? MAX_INPUT_BYTES;
  if (!Number.isSafeInteger(max) || max < 0) throw new TypeError(`maxBytes must be a non-negative integer (got ${String(max)})`);
  return max;
}

/** Checks that `path` is a regular file (not a directory, pipe or device) of at most `maxBytes`, or throws an InputError naming it. */
export async function statInputFile(path: string, maxBytes: number, hint = ''): Promise<Stats> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    throw new InputError({ file: path, rule: describeReadError(err) });
  }
  if (st.isDirectory()) throw new InputError({ file: path, rule: 'is a directory, not a file' });
  if (!st.isFile()) throw new InputError({ file: path, rule: `is not a regular file (it is ${kindOf(st)})${hint}` });
  if (st.size > maxBytes) throw tooLarge(path, maxBytes);
  return st;
}

/** Opens a file for reading, or throws an InputError naming it. */
export async function openInputFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (err) {
    throw new InputError({ file: path, rule: describeReadError(err) });
  }
}

/** Reads a regular file of at most `maxBytes` bytes, or throws an InputError naming it. */
export async function readInputFile(path: string, maxBytes: number, hint = ''): Promise<Buffer> {
  const st = await statInputFile(path, maxBytes, hint);
  const handle = await openInputFile(path);
  try {
    // The file may grow between stat and read: read at most one byte past the limit to notice.
    const buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > maxBytes) throw tooLarge(path, maxBytes);
        break;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw tooLarge(path, maxBytes);
    return buffer.subarray(0, filled);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError({ file: path, rule: describeReadError(err) });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads a stream to its end, refusing more than `maxBytes` bytes (and then stops reading). */
export async function readInputStream(stream: NodeJS.ReadableStream, name: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
      size += bytes.length;
      if (size > maxBytes) throw tooLarge(name, maxBytes);
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError({ file: name, rule: describeReadError(err) });
  }
  return Buffer.concat(chunks, size);
}

/** Strict UTF-8 (a leading byte-order mark is dropped); invalid bytes are an InputError at their line and offset. */
export function decodeUtf8(bytes: Uint8Array, file: string | undefined): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = invalidUtf8Offset(bytes) ?? 0;
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    throw invalidUtf8(bytes, offset, { file, line, fileOffset: offset });
  }
}

/** One line of a file, strict UTF-8: invalid bytes are an InputError at the line and the file offset (`lineStart`: the line's). */
export function decodeUtf8Line(bytes: Uint8Array, file: string | undefined, line: number, lineStart: number): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = invalidUtf8Offset(bytes) ?? 0;
    throw invalidUtf8(bytes, offset, { file, line, fileOffset: lineStart + offset });
  }
}

function invalidUtf8(bytes: Uint8Array, offset: number, at: { file: string | undefined; line: number; fileOffset: number }): InputError {
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
  return new InputError({
    ...(at.file === undefined ? {} : { file: at.file }),
    line: at.line,
    rule: `invalid UTF-8 at byte offset ${at.fileOffset} (byte 0x${byte}); the file must be UTF-8 text`,
  });
}

/** The offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      const min = k === 1 ? lo : 0x80;
      const max = k === 1 ? hi : 0xbf;
      if (c < min || c > max) return i;
    }
    i += need + 1;
  }
  return undefined;
}

export function tooLarge(file: string, maxBytes: number): InputError {
  return new InputError({ file, rule: `is larger than the ${formatBytes(maxBytes)} limit for input files` });
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes}-byte`;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

export function describeReadError(err: unknown): string {
  const code = err !== null && typeof err === 'object' && 'code' in err ? String(err.code) : '';
  switch (code) {
    case 'ENOENT':
      return 'file not found';
    case 'ENOTDIR':
      return 'file not found (a parent in the path is not a directory)';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    case 'ENAMETOOLONG':
      return 'cannot be read (the path is too long)';
    case 'ELOOP':
      return 'cannot be read (too many levels of symbolic links)';
    default:
      return `cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
}
