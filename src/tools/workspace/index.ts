import type { Tool } from '../define.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep.js';
import { resolveLimits, type WorkspaceLimits } from './limits.js';
import { listDirTool } from './list-dir.js';
import { realRoot } from './paths.js';
import { readFileTool } from './read-file.js';

/**
 * The built-in read-only workspace tools, confined to `root`: read_file, list_dir, glob, grep.
 * The root is resolved (realpath) now, so a missing root fails at startup rather than on a fork's first call.
 */
export function workspaceTools(root: string, limits?: WorkspaceLimits): Tool[] {
  const real = realRoot(root);
  const resolved = resolveLimits(limits);
  // Each tool is typed by its own args; Tool[] erases that, as every tool list does (the host validates args first).
  return [readFileTool, listDirTool, globTool, grepTool].map((make) => make(real, resolved) as Tool);
}

export { compileGlob } from './glob.js';
export type { WorkspaceLimits } from './limits.js';
export { WorkspacePathError } from './paths.js';
