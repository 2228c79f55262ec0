import { realpath } from 'node:fs/promises';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Longest path a tool accepts; PATH_MAX on Linux, and far beyond any real workspace path. */
export const MAX_PATH_CHARS = 4096;

export type PathRule = 'nul' | 'too_long' | 'outside_root' | 'absolute_outside_root' | 'symlink_outside_root' | 'not_found';

/** A refused or unresolvable path; `rule` says which check failed, so callers and tests need not parse text. */
export class WorkspacePathError extends Error {
  constructor(
    readonly requested: string,
    readonly rule: PathRule,
    detail: string,
  ) {
    super(`path ${show(requested)} ${detail}`);
    this.name = 'WorkspacePathError';
  }
}

/** A path inside the root: its real absolute location and its root-relative form with '/' separators. */
export interface ResolvedPath {
  abs: string;
  rel: string;
}

/** Quotes a path for a message, shortening it: an over-long path must not flood the model's context. */
function show(p: string): string {
  const cut = p.length > 200 ? `${p.slice(0, 200)}…` : p;
  return JSON.stringify(cut) + (p.length > 200 ? ` (${p.length} chars)` : '');
}

/** Resolves the root once, so every later containment check compares real paths with real paths. */
export function realRoot(root: string): string {
  const real = realpathSync(path.resolve(root));
  if (!statSync(real).isDirectory()) throw new Error(`workspace root ${JSON.stringify(root)} is not a directory`);
  return real;
}

/** True when `abs` is `root` itself or below it (path.relative is separator-aware, unlike a prefix test). */
export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves a user-supplied path against the real root and refuses anything that ends up outside it.
 * The lexical check comes first so that `../x` is refused by name even when x does not exist; the
 * realpath check then catches symlinks (the file itself or any directory on the way).
 */
export async function resolveInRoot(root: string, requested: string): Promise<ResolvedPath> {
  if (requested.includes('\0')) throw new WorkspacePathError(requested, 'nul', 'is refused: it contains a NUL character');
  if (requested.length > MAX_PATH_CHARS) {
    throw new WorkspacePathError(requested, 'too_long', `is refused: it is longer than ${MAX_PATH_CHARS} characters`);
  }
  const lexical = path.resolve(root, requested);
  if (!isInside(root, lexical)) {
    const rule = path.isAbsolute(requested) ? 'absolute_outside_root' : 'outside_root';
    const how = rule === 'absolute_outside_root' ? 'it is an absolute path outside' : 'it resolves (through "..") outside';
    throw new WorkspacePathError(requested, rule, `is refused: ${how} the workspace root`);
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) {
      throw new WorkspacePathError(requested, 'not_found', 'does not exist in the workspace');
    }
    throw err;
  }
  if (!isInside(root, real)) {
    throw new WorkspacePathError(
      requested,
      'symlink_outside_root',
      'is refused: it goes through a symlink that resolves outside the workspace root',
    );
  }
  return { abs: real, rel: toRel(root, real) };
}

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}
