import { seedRequest } from '../shapes/seed-request.js';
import { seedTask } from '../fork/index.js';
import type { ContextWindow } from '../model/context-windows.js';
import { estimateTokens, type FrozenPrefix } from '../prefix/index.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import { emptyFailure } from '../result/results.js';
import type { ForkResult } from '../result/fork-result.js';

/** The context window a run holds its tasks to: its model's, where forkpool's table or the run's own prices know it. */
export interface RunWindow extends ContextWindow {
  model: string;
}

// Not an Intl.NumberFormat made at import: that loads ICU's locale data, which a run that refuses nothing never needs.
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The one place a task is held against its model's context window, as the run takes it: a task
 * whose first request would not fit ends `failed` (kind `rejected`) before any call, naming itself,
 * its estimated tokens and the window. The estimate is the prefix's plus the directive's (about 4
 * characters a token); only a task over the window on that count is seeded to measure its actual
 * first request (a trimmed history or a fresh sub-agent sends less than the whole prefix).
 */
export function windowRefusal(
  task: ForkTask,
  prefix: FrozenPrefix,
  window: RunWindow,
  seedDefaults: { history: HistoryMode; spawnTools: ReadonlySet<string> },
): ForkResult | undefined {
  if (prefix.tokenEstimate + estimateTokens(task.directive) <= window.tokens) return undefined;
  const tokens = firstRequestTokens(task, prefix, seedDefaults);
  if (tokens === undefined || tokens <= window.tokens) return undefined;
  return emptyFailure(
    task.id,
    'rejected',
    `task "${task.id}" was not sent: its first request is about ${count(tokens)} tokens (estimated), over the ${count(window.tokens)}-token context window of ${window.model}`,
  );
}

/** The first request's size in tokens (estimated); undefined when the task cannot be seeded (its worker reports why). */
function firstRequestTokens(
  task: ForkTask,
  prefix: FrozenPrefix,
  seedDefaults: { history: HistoryMode; spawnTools: ReadonlySet<string> },
): number | undefined {
  try {
    const seed = seedTask(prefix.session, task, task.directive, {
      history: seedDefaults.history,
      spawnTools: [...seedDefaults.spawnTools],
    });
    return estimateTokens(JSON.stringify(seedRequest(seed, seed.contents)));
  } catch {
    return undefined;
  }
}
