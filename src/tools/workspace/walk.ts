import { opendir, realpath, stat } from 'node:fs/promises';
import type { Dir } from 'node:fs';
import path from 'node:path';
import { isInside } from './paths.js';

/** Directories no search should enter: dependencies and VCS internals are noise and can be huge. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkOptions {
  /** The real workspace root: nothing outside it is ever yielded or entered. */
  root: string;
  /** Real absolute directory to start from (inside root). */
  start: string;
  /** Root-relative form of start ('.' for the root). */
  startRel: string;
  maxDepth: number;
  signal: AbortSignal;
}

export interface WalkedFile {
  /** Real absolute path, for reading. */
  abs: string;
  /** Path relative to the root as walked (through in-root symlinks), with '/' separators. */
  rel: string;
}

/** Set by the walk when it stopped descending at maxDepth, so callers can report truncation. */
export interface WalkState {
  depthLimited: boolean;
}

/**
 * Yields the regular files below `start` in name order. Symlinks are followed only when their real
 * target is inside the root (a symlinked directory pointing outside is not entered); each real
 * directory is entered once, so symlink cycles end. The signal is checked before every entry.
 */
export async function* walkFiles(opts: WalkOptions, state: WalkState): AsyncGenerator<WalkedFile> {
  const visited = new Set<string>([opts.start]);
  yield* walkDir(opts, opts.start, opts.startRel, 0, visited, state);
}

async function* walkDir(
  opts: WalkOptions,
  dir: string,
  rel: string,
  depth: number,
  visited: Set<string>,
  state: WalkState,
): AsyncGenerator<WalkedFile> {
  const names: { name: string; kind: 'file' | 'dir' | 'symlink' | 'other' }[] = [];
  let handle: Dir;
  try {
    handle = await opendir(dir);
  } catch (err) {
    if (depth > 0) return; // an unreadable subdirectory (EACCES) should not sink the whole search
    throw err;
  }
  for await (const entry of handle) {
    const kind = entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : 'other';
    names.push({ name: entry.name, kind });
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, kind } of names) {
    opts.signal.throwIfAborted();
    const abs = path.join(dir, name);
    const childRel = rel === '.' ? name : `${rel}/${name}`;
    let real = abs;
    let isDir = kind === 'dir';
    if (kind === 'symlink') {
      const target = await followLink(opts.root, abs);
      if (target === undefined) continue;
      real = target.real;
      isDir = target.isDir;
      if (!isDir && !target.isFile) continue;
    } else if (kind === 'other') {
      continue; // sockets, fifos, devices: reading a fifo would block the walk
    }
    if (isDir) {
      if (SKIPPED_DIRS.has(name) || visited.has(real)) continue;
      if (depth + 1 > opts.maxDepth) {
        state.depthLimited = true;
        continue;
      }
      visited.add(real);
      yield* walkDir(opts, real, childRel, depth + 1, visited, state);
    } else {
      yield { abs: real, rel: childRel };
    }
  }
}

/** A link's real target when it stays inside the root; undefined when it escapes or dangles. */
async function followLink(root: string, link: string): Promise<{ real: string; isDir: boolean; isFile: boolean } | undefined> {
  try {
    const real = await realpath(link);
    if (!isInside(root, real)) return undefined;
    const st = await stat(real);
    return { real, isDir: st.isDirectory(), isFile: st.isFile() };
  } catch {
    return undefined;
  }
}
