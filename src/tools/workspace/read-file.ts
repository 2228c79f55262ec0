import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../define.js';
import { clipLine, looksBinary, type ResolvedLimits } from './limits.js';
import { resolveInRoot } from './paths.js';

/** Lines returned when the caller gives no limit: enough for most source files, bounded for logs. */
const DEFAULT_LINE_LIMIT = 2000;

interface ReadFileResult {
  path: string;
  content: string;
  /** Lines in the file, or in its first maxFileBytes when the file is bigger (then truncated is true). */
  totalLines: number;
  /** True when lines, bytes or line lengths were cut. */
  truncated: boolean;
}

const parameters = z.object({
  path: z.string().describe('File path relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start from (default 1).'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to return (default ${DEFAULT_LINE_LIMIT}).`),
});

export function readFileTool(root: string, limits: ResolvedLimits): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file in the workspace. Returns lines [offset, offset+limit) joined by newlines, the total line count, and truncated: true when anything was cut.',
    parameters,
    async execute(args): Promise<ReadFileResult> {
      const target = await resolveInRoot(root, args.path);
      const { bytes, fileTooBig } = await readHead(target.abs, args.path, limits.maxFileBytes);
      if (looksBinary(bytes)) throw new Error(`read_file: ${JSON.stringify(target.rel)} is a binary file; read_file returns text only`);
      const lines = splitLines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
      const start = (args.offset ?? 1) - 1;
      const end = Math.min(lines.length, start + (args.limit ?? DEFAULT_LINE_LIMIT));
      let clipped = false;
      const kept = lines.slice(start, end).map((line) => {
        const c = clipLine(line, limits.maxLineChars);
        clipped ||= c.clipped;
        return c.text;
      });
      return {
        path: target.rel,
        content: kept.join('\n'),
        totalLines: lines.length,
        truncated: fileTooBig || clipped || end < lines.length,
      };
    },
  });
}

/** Reads at most maxBytes (+1 to learn whether there is more) so a huge file is never loaded whole. */
async function readHead(abs: string, requested: string, maxBytes: number): Promise<{ bytes: Uint8Array; fileTooBig: boolean }> {
  // stat before open: opening a fifo would block a libuv thread until some writer shows up.
  const st = await stat(abs);
  if (st.isDirectory()) throw new Error(`read_file: ${JSON.stringify(requested)} is a directory; use list_dir`);
  if (!st.isFile()) throw new Error(`read_file: ${JSON.stringify(requested)} is not a regular file`);
  const handle = await open(abs, 'r');
  try {
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const fileTooBig = bytesRead > maxBytes;
    return { bytes: buf.subarray(0, Math.min(bytesRead, maxBytes)), fileTooBig };
  } finally {
    await handle.close();
  }
}

/** Splits on \n or \r\n; a final newline does not make an extra empty line (as editors count). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
