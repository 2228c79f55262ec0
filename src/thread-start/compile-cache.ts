import * as nodeModule from 'node:module';

/**
 * Switches on Node's module compile cache (module.enableCompileCache, Node 22.8 and later; absent on
 * Node 20, where this does nothing), in forkpool's own processes and threads only: the CLI and the
 * worker entry points. Never in an embedder's main thread: where its compiled code goes is its choice
 * (NODE_COMPILE_CACHE, which this respects, since Node reads it first). Only the modules imported
 * after this call are cached: a worker's provider SDK, loaded at the run's first call; the CLI's commands.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  try {
    enable?.();
  } catch {
    // A cache directory that cannot be written: modules compile as they would without it.
  }
}
