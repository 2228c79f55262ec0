import type { Content, ForkTurns, GeminiTool, ParentSession, Part, HistoryMode, SystemInstruction } from '../session/schema.js';
import { buildChildMessage } from './child-message.js';
import { AGENT_TOOL_NAME } from './agent-tool.js';
import {
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_PLACEHOLDER_TEXT,
  FORK_SYSTEM_INSTRUCTION,
  FORK_UNAVAILABLE_RESULT_TEXT,
} from './constants.js';
import { assertNotForkChild } from './guards.js';
import { completedTurnPrefix, hasFunctionCalls, keepLastUserTurns } from './history.js';

export interface SeedOptions {
  /** 'inherit' (default): the whole history; 'completed-turns': up to the last completed turn. */
  history?: HistoryMode;
  /** 'all' (default) or N: keep only the last N real user turns. */
  forkTurns?: ForkTurns;
  /** Exact names of the tools the fork may execute; [] allows none. Declarations are not changed. */
  allowedTools?: readonly string[];
  /**
   * Tools that start agents (default: the `agent` tool). In a mid-turn parent, only their calls
   * lose their arguments, so sibling forks never read each other's directives.
   */
  spawnTools?: readonly string[];
  /**
   * true (default): everything returned is a private deep copy. false: the session's messages and
   * prefix fields are shared, not copied — for a caller that never mutates them, such as the
   * engine's workers, whose prefix is deep-frozen (a copy per fork in flight would cost a whole
   * parsed history each).
   */
  copy?: boolean;
}

/**
 * Where the child message went:
 * - 'continue': the history ends on a model message; the child message is the next user message;
 * - 'mid-turn': the parent was mid-turn (function calls); placeholders, child message, ack, begin;
 * - 'tool-results': the history ends on the real results of the last calls; a call still without
 *   one gets a placeholder, and the child message joins that user message;
 * - 'dropped-user': a trailing user message the parent never answered (no results of the last
 *   calls in it) was dropped first;
 * - 'fresh': no history to inherit; the fork starts like a fresh agent.
 */
export type SeedCase = 'continue' | 'mid-turn' | 'tool-results' | 'dropped-user' | 'fresh';

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
   * same history mode and forkTurns, whatever the directive: the part that can be cached once for all.
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
  const { history = 'inherit', forkTurns = 'all', allowedTools, spawnTools = [AGENT_TOOL_NAME] } = checkOptions(directive, options);
  const clone = options.copy === false ? shareMessages : deepCopy;
  assertNotForkChild(session.history);

  const base = history === 'completed-turns' ? completedTurnPrefix(session.history) : session.history.slice();
  const { kept, dropped } = keepLastUserTurns(base, forkTurns);
  const childText = buildChildMessage(directive, allowedTools);
  const built = buildContents(clone(kept), childText, new Set(spawnTools));

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
function buildContents(history: Content[], childText: string, spawnTools: ReadonlySet<string>): Built {
  let seedCase: SeedCase = 'continue';
  let last = history[history.length - 1];
  const results = last?.role === 'user' ? answeredCalls(last, history[history.length - 2]) : undefined;
  if (last?.role === 'user' && results === undefined) {
    // A prompt the parent never answered (no results of the last calls in it): that one message
    // goes, and the child message takes its place.
    history.pop();
    seedCase = 'dropped-user';
    last = history[history.length - 1];
  }
  if (last === undefined) return { contents: [userText(childText)], shared: 0, seedCase: 'fresh' };
  if (last.role === 'user') {
    if (results === undefined) return { contents: [...history, userText(childText)], shared: history.length, seedCase };
    // Real results of the last calls, which the parent has not answered yet: kept as they are (the
    // calls keep their arguments); a call still without a result gets a placeholder, so every call
    // is answered; the child message joins that same user message.
    history[history.length - 1] = { ...last, parts: [...last.parts, ...placeholders(results.unanswered, spawnTools), { text: childText }] };
    return { contents: history, shared: history.length - 1, seedCase: 'tool-results' };
  }
  if (!hasFunctionCalls(last)) {
    return { contents: [...history, userText(childText)], shared: history.length, seedCase };
  }
  // Mid-turn: siblings share the call message (agent calls without their arguments) and the
  // placeholders byte for byte; only the child message differs, so nobody sees a sibling's directive.
  const calls = last.parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
  history[history.length - 1] = { ...last, parts: last.parts.map((part) => redactSpawnCall(part, spawnTools)) };
  return {
    contents: [
      ...history,
      { role: 'user', parts: [...placeholders(calls, spawnTools), { text: childText }] },
      { role: 'model', parts: [{ text: FORK_ACK_TEXT }] },
      userText(FORK_BEGIN_TEXT),
    ],
    shared: history.length,
    seedCase: 'mid-turn',
  };
}

type Call = NonNullable<Part['functionCall']>;

/**
 * When `message` holds results of `previous`'s calls (matched by id, or by name without one):
 * the calls it leaves unanswered. undefined when it answers none of them.
 */
function answeredCalls(message: Readonly<Content>, previous: Readonly<Content> | undefined): { unanswered: Call[] } | undefined {
  const calls = previous?.role === 'model' ? previous.parts.flatMap((part) => (part.functionCall ? [part.functionCall] : [])) : [];
  const open = [...calls];
  let answered = 0;
  for (const part of message.parts) {
    const response = part.functionResponse;
    if (response === undefined) continue;
    const at = open.findIndex((call) => (call.id !== undefined && call.id !== '' ? call.id === response.id : call.name === response.name));
    if (at < 0) continue;
    open.splice(at, 1);
    answered++;
  }
  return answered > 0 ? { unanswered: open } : undefined;
}

/** One result per call: the reference's fork placeholder for agent calls, "not available" for the rest. */
function placeholders(calls: readonly Call[], spawnTools: ReadonlySet<string>): Part[] {
  return calls.map((call) => ({
    functionResponse: {
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      response: { output: spawnTools.has(call.name) ? FORK_PLACEHOLDER_TEXT : FORK_UNAVAILABLE_RESULT_TEXT },
    },
  }));
}

/** An agent call keeps its place, id and name; its arguments (a sibling's directive) become `{}`. */
function redactSpawnCall(part: Part, spawnTools: ReadonlySet<string>): Part {
  return part.functionCall && spawnTools.has(part.functionCall.name) ? { ...part, functionCall: { ...part.functionCall, args: {} } } : part;
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
  const { history, forkTurns, allowedTools, spawnTools } = options;
  if ('seed' in options) throw new TypeError('seedFork: the option "seed" is now called "history"');
  if (history !== undefined && history !== 'inherit' && history !== 'completed-turns') {
    throw new TypeError(`seedFork: history must be "inherit" or "completed-turns", not ${JSON.stringify(history)}`);
  }
  if (forkTurns !== undefined && forkTurns !== 'all' && !(Number.isSafeInteger(forkTurns) && forkTurns > 0)) {
    throw new RangeError(`seedFork: forkTurns must be "all" or a positive integer, not ${JSON.stringify(forkTurns)}`);
  }
  if (allowedTools !== undefined && (!Array.isArray(allowedTools) || allowedTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError('seedFork: allowedTools must be an array of tool names');
  }
  if (spawnTools !== undefined && (!Array.isArray(spawnTools) || spawnTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError('seedFork: spawnTools must be an array of tool names');
  }
  return options;
}
