import type { Content, ForkTurns } from '../session/schema.js';
import { isRealUserTurn, syntheticPrefixLength } from './synthetic.js';

export function hasFunctionCalls(message: Readonly<Content>): boolean {
  return message.parts.some((part) => part.functionCall !== undefined);
}

/**
 * The longest prefix ending with a completed turn: a model message without function calls, with
 * every earlier function call answered. Calls are matched by id, or by name when they have none.
 */
export function completedTurnPrefix<T extends Readonly<Content>>(history: readonly T[]): T[] {
  const pending = new Map<string, number>();
  let end = 0;
  history.forEach((message, index) => {
    for (const part of message.parts) {
      const key = callKey(part.functionCall ?? part.functionResponse);
      if (key === undefined) continue;
      const count = pending.get(key) ?? 0;
      if (part.functionCall !== undefined) pending.set(key, count + 1);
      else if (count <= 1) pending.delete(key);
      else pending.set(key, count - 1);
    }
    if (message.role === 'model' && !hasFunctionCalls(message) && pending.size === 0) end = index + 1;
  });
  return history.slice(0, end);
}

function callKey(ref: { id?: string | undefined; name: string } | undefined): string | undefined {
  if (ref === undefined) return undefined;
  return ref.id !== undefined && ref.id !== '' ? `id:${ref.id}` : `name:${ref.name}`;
}

/**
 * A numeric fork window, as the reference builds it: the last `turns` real user turns (and
 * everything after the first of them), never counting or inheriting a synthetic prefix (startup
 * context, a compacted-history summary) — no turns at all when no real user turn follows it. The
 * startup context is put back in front of the window as the parent sent it, as the reference
 * does: the fork still knows its environment, and its request still opens like the parent's.
 * Returns how many parent messages were left out.
 */
export function keepLastUserTurns<T extends Readonly<Content>>(
  history: readonly T[],
  turns: ForkTurns,
): { kept: T[]; dropped: number } {
  if (turns === 'all') return { kept: history.slice(), dropped: 0 };
  const startup = history.slice(0, syntheticPrefixLength(history));
  const window = lastUserTurns(history, turns);
  return { kept: [...startup, ...window], dropped: history.length - startup.length - window.length };
}

/** The window alone (the reference's selectForkHistory for a number): no synthetic prefix. */
export function lastUserTurns<T extends Readonly<Content>>(history: readonly T[], turns: number): T[] {
  const starts: number[] = [];
  for (let i = syntheticPrefixLength(history, { includeCompacted: true }); i < history.length; i++) {
    if (isRealUserTurn(history[i] as T)) starts.push(i);
  }
  if (starts.length === 0) return [];
  return history.slice(starts[Math.max(0, starts.length - turns)]);
}
