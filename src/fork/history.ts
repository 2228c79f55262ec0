import type { Content, ForkTurns, Part } from '../session/schema.js';

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

export function hasFunctionCalls(message: Readonly<Content>): boolean {
  return message.parts.some((part) => part.functionCall !== undefined);
}

/** A part a person wrote: not a tool result, not blank, not only injected reminders. */
function isRealUserPart(part: Readonly<Part>): boolean {
  if (part.functionResponse !== undefined) return false;
  if (typeof part.text === 'string') return part.text.replace(REMINDER, '').trim() !== '';
  return true; // images, files and other kinds are something the user sent
}

/** Where a real user turn starts (tool results and reminders ride on user messages too). */
export function isRealUserTurn(message: Readonly<Content>): boolean {
  return message.role === 'user' && message.parts.some(isRealUserPart);
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
 * Keeps the last `turns` real user turns (and everything after the first of them).
 * Returns how many leading messages were left out.
 */
export function keepLastUserTurns<T extends Readonly<Content>>(
  history: readonly T[],
  turns: ForkTurns,
): { kept: T[]; dropped: number } {
  if (turns === 'all') return { kept: history.slice(), dropped: 0 };
  const starts: number[] = [];
  history.forEach((message, index) => {
    if (isRealUserTurn(message)) starts.push(index);
  });
  if (starts.length <= turns) return { kept: history.slice(), dropped: 0 };
  const cut = starts[starts.length - turns] ?? 0;
  return { kept: history.slice(cut), dropped: cut };
}
