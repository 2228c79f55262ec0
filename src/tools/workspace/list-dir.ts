import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../define.js';
import type { ResolvedLimits } from './limits.js';
import { resolveInRoot } from './paths.js';

type EntryType = 'file' | 'dir' | 'symlink' | 'other';

interface DirEntry {
  name: string;
  type: EntryType;
  /** Bytes for files; for symlinks the link's own size (the target is not followed). */
  size: number;
}

interface ListDirResult {
  path: string;
  entries: DirEntry[];
  truncated: boolean;
}

const parameters = z.object({
  path: z.string().optional().describe('Directory relative to the workspace root (default: the root).'),
});

export function listDirTool(root: string, limits: ResolvedLimits): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: 'list_dir',
    description: 'List a workspace directory: each entry with name, type (file, dir, symlink, other) and size in bytes, sorted by name.',
    parameters,
    async execute(args, ctx): Promise<ListDirResult> {
      const requested = args.path ?? '.';
      const target = await resolveInRoot(root, requested);
      const dirents = await readdir(target.abs, { withFileTypes: true }).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
          throw new Error(`list_dir: ${JSON.stringify(requested)} is not a directory; use read_file`);
        }
        throw err;
      });
      const names = dirents.map((d) => d.name).sort();
      const entries: DirEntry[] = [];
      for (const name of names.slice(0, limits.maxResults)) {
        ctx.signal.throwIfAborted();
        // lstat: a symlink is reported as one, never followed, so listing cannot reveal what lies outside.
        const st = await lstat(path.join(target.abs, name));
        const type: EntryType = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
        entries.push({ name, type, size: st.size });
      }
      return { path: target.rel, entries, truncated: names.length > limits.maxResults };
    },
  });
}
