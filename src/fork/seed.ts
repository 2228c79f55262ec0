import type { Content, ForkTurns, GeminiTool, ParentSession, Part, SeedMode, SystemInstruction } from '../session/schema.js';
import { buildChildMessage } from './child-message.js';
import { FORK_ACK_TEXT, FORK_BEGIN_TEXT, FORK_PLACEHOLDER_TEXT, FORK_SYSTEM_INSTRUCTION } from './constants.js';
import { assertNotForkChild } from './guards.js';
import { completedTurnPrefix, hasFunctionCalls, keepLastUserTurns } from './history.js';

export interface SeedOptions {
  /** 'inherit' (default): the whole history; 'completed-turns': up to the last completed turn. */
  seed?: SeedMode;
  /** 'all' (default) or N: keep only the last N real user turns. */
  forkTurns?: ForkTurns;
  /** Exact names of the tools the fork may execute; [] allows none. Declarations are not changed. */
  allowedTools?: readonly string[];
  /**
   * true (default): everything returned is a private deep copy. false: the session's messages and
   * prefix fields are shared, not copied — for a caller that never mutates them, such as the
   * engine's workers, whose prefix is deep-frozen (a copy per fork in flight would cost a whole
   * parsed history each).
   */
  copy?: boolean;
}

/**
 * How the history was made to end on a model message:
 * - 'continue': it already did; the child message is the next user message;
 * - 'mid-turn': the parent was mid-turn (function calls); redacted calls, placeholders, ack, begin;
 * - 'dropped-user': trailing user message(s) were dropped first;
 * - 'fresh': no history to inherit; the fork starts like a fresh agent.
 */
export type SeedCase = 'continue' | 'mid-turn' | 'dropped-user' | 'fresh';

/** The pieces of a fork's first model request. */
export interface ForkSeed {
  model: string;
  systemInstruction?: SystemInstruction;
  tools?: GeminiTool[];
  toolConfig?: ParentSession['toolConfig'];
  generationConfig?: ParentSession['generationConfig'];
  contents: Content[];
  /**
   * How many leading entries of `contents` are the same for every fork of this session with the
   * same seed and forkTurns, whatever the directive: the part that can be cached once for all.
   */
  sharedContents: number;
  seedCase: SeedCase;
  /** Leading parent messages left out by forkTurns: when > 0, the history is no longer the parent's prefix. */
  trimmedMessages: number;
}

export function seedFork(
  session: ParentSession | Readonly<ParentSession>,
  directive: string,
  options: SeedOptions = {},
): ForkSeed {
  const { seed = 'inherit', forkTurns = 'all', allowedTools } = checkOptions(directive, options);
  const clone = options.copy === false ? shareMessages : deepCopy;
  assertNotForkChild(session.history);

  const base = seed === 'completed-turns' ? completedTurnPrefix(session.history) : session.history.slice();
  const { kept, dropped } = keepLastUserTurns(base, forkTurns);
  const childText = buildChildMessage(directive, allowedTools);
  const built = buildContents(clone(kept), childText);

  const out: ForkSeed = {
    model: session.model,
    contents: built.contents,
    sharedContents: built.shared,
    seedCase: built.seedCase,
    trimmedMessages: dropped,
  };
  // Verbatim copies: these are the cached prefix, so a fork never edits them. Absent stays absent.
  if (session.systemInstruction !== undefined) out.systemInstruction = clone(session.systemInstruction);
  else if (built.seedCase === 'fresh') out.systemInstruction = clone(FORK_SYSTEM_INSTRUCTION);
  if (session.tools !== undefined) out.tools = clone(session.tools);
  if (session.toolConfig !== undefined) out.toolConfig = clone(session.toolConfig);
  if (session.generationConfig !== undefined) out.generationConfig = clone(session.generationConfig);
  return out;
}

interface Built {
  contents: Content[];
  shared: number;
  seedCase: SeedCase;
}

/** `history` is a private array here, so it can be reused in the result. */
function buildContents(history: Content[], childText: string): Built {
  let seedCase: SeedCase = 'continue';
  // A history ending on a user message (unusual) loses it: the child message takes its place.
  while (history.length > 0 && history[history.length - 1]?.role === 'user') {
    history.pop();
    seedCase = 'dropped-user';
  }
  const last = history[history.length - 1];
  if (last === undefined) return { contents: [userText(childText)], shared: 0, seedCase: 'fresh' };
  if (!hasFunctionCalls(last)) {
    return { contents: [...history, userText(childText)], shared: history.length, seedCase };
  }
  // Mid-turn: siblings share the redacted call message and the placeholders byte for byte;
  // only the child message differs, so nobody sees a sibling's directive.
  const calls = last.parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
  history[history.length - 1] = { ...last, parts: last.parts.map(redactCall) };
  const placeholders: Part[] = calls.map((call) => ({
    functionResponse: {
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      response: { output: FORK_PLACEHOLDER_TEXT },
    },
  }));
  return {
    contents: [
      ...history,
      { role: 'user', parts: [...placeholders, { text: childText }] },
      { role: 'model', parts: [{ text: FORK_ACK_TEXT }] },
      userText(FORK_BEGIN_TEXT),
    ],
    shared: history.length,
    seedCase: 'mid-turn',
  };
}

function redactCall(part: Part): Part {
  return part.functionCall ? { ...part, functionCall: { ...part.functionCall, args: {} } } : part;
}

function userText(text: string): Content {
  return { role: 'user', parts: [{ text }] };
}

function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** Arrays stay private (the seed appends to them); their messages are shared. */
function shareMessages<T>(value: T): T {
  return (Array.isArray(value) ? value.slice() : value) as T;
}

function checkOptions(directive: string, options: SeedOptions): SeedOptions {
  if (typeof directive !== 'string' || directive.trim() === '') {
    throw new TypeError('seedFork: the directive must be a non-empty string');
  }
  const { seed, forkTurns, allowedTools } = options;
  if (seed !== undefined && seed !== 'inherit' && seed !== 'completed-turns') {
    throw new TypeError(`seedFork: seed must be "inherit" or "completed-turns", not ${JSON.stringify(seed)}`);
  }
  if (forkTurns !== undefined && forkTurns !== 'all' && !(Number.isSafeInteger(forkTurns) && forkTurns > 0)) {
    throw new RangeError(`seedFork: forkTurns must be "all" or a positive integer, not ${JSON.stringify(forkTurns)}`);
  }
  if (allowedTools !== undefined && (!Array.isArray(allowedTools) || allowedTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError('seedFork: allowedTools must be an array of tool names');
  }
  return options;
}
