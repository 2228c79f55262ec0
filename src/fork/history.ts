import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage, CallView, ResultView } from '../shapes/view.js';
import type { ForkTurns } from '../session/schema.js';
import { isRealUserTurn, syntheticPrefixLength } from './synthetic.js';

/**
 * The longest prefix ending with a completed turn: a model message without function calls, with
 * every earlier function call answered. Calls are matched by id, or by name when they have none.
 * With `split` (one response written as several messages: the Responses API's items) a turn ends
 * only where its last model message does.
 */
export function completedTurnPrefix<T extends AnyMessage>(history: readonly T[], split = false): T[] {
  const pending = new Map<string, number>();
  let end = 0;
  history.forEach((message, index) => {
    const view = viewMessage(message);
    for (const call of view.calls) {
      const key = callKey(call);
      pending.set(key, (pending.get(key) ?? 0) + 1);
    }
    for (const result of view.results) {
      const key = callKey(result);
      const count = pending.get(key) ?? 0;
      if (count <= 1) pending.delete(key);
      else pending.set(key, count - 1);
    }
    const next = history[index + 1];
    const turnGoesOn = split && next !== undefined && viewMessage(next).role === 'model';
    if (view.role === 'model' && view.calls.length === 0 && pending.size === 0 && !turnGoesOn) end = index + 1;
  });
  return history.slice(0, end);
}

function callKey(ref: CallView | ResultView): string {
  return ref.id !== undefined && ref.id !== '' ? `id:${ref.id}` : `name:${ref.name ?? ''}`;
}

/**
 * A numeric fork window: the last `turns` real user turns (and everything after the first of
 * them). It never counts or inherits a synthetic prefix (startup context, a compacted-history
 * summary), and holds nothing when no real user turn follows that prefix — the reference's
 * selectForkHistory. Returns how many leading parent messages were left out.
 */
export function keepLastUserTurns<T extends AnyMessage>(history: readonly T[], turns: ForkTurns): { kept: T[]; dropped: number } {
  if (turns === 'all') return { kept: history.slice(), dropped: 0 };
  const starts: number[] = [];
  for (let i = syntheticPrefixLength(history, { includeCompacted: true }); i < history.length; i++) {
    if (isRealUserTurn(history[i] as T)) starts.push(i);
  }
  const cut = starts.length === 0 ? history.length : (starts[Math.max(0, starts.length - turns)] as number);
  return { kept: history.slice(cut), dropped: cut };
}
