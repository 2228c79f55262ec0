import { threadId } from 'node:worker_threads';
import { findProvider, loadProvider } from '../model/providers/index.js';
import type { ProviderConfig } from '../model/types.js';

/**
 * Piscina's task `startThread` (`startThreads: 'ahead'`): this thread has loaded the fork worker to
 * run it; it loads the run's provider too (a module of one's own, the provider's SDK), so that its
 * first fork waits for neither. Its thread id tells the engine which thread has started.
 */
export async function startThread(config: ProviderConfig): Promise<number> {
  const module = config.module !== undefined ? await loadProvider(config.module) : findProvider(config.kind);
  await module?.preload?.(config);
  return threadId;
}
