import type { ForkTask, HistoryMode } from '../session/schema.js';

/**
 * A fork's seed window: forks with the same history mode and forkTurns start from the same history
 * (general-purpose sub-agents from none),
 * so they share a cacheable head (one explicit cache, one theoretical-maximum leader, one measure).
 */
export function seedWindow(task: Pick<ForkTask, 'history' | 'forkTurns' | 'subagentType'>, defaultHistory: HistoryMode): string {
  if (task.subagentType === 'general-purpose') return 'fresh';
  return `${task.history ?? defaultHistory}|${task.forkTurns ?? 'all'}`;
}
