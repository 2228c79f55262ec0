import type { Dialect, ToolResponse } from '../shapes/dialect.js';
import { dialectOf } from '../shapes/index.js';
import type { SeedCase } from '../shapes/seed.js';
import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage, CallView } from '../shapes/view.js';
import type { ForkTurns, HistoryMode } from '../session/schema.js';
import type { ForkSeedOf, ParentSession } from '../shapes/registry.js';
import { buildChildMessage } from '../wording/child-message.js';
import {
  AGENT_TOOL_NAME,
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_PLACEHOLDER_TEXT,
  FORK_SYSTEM_TEXT,
  FORK_UNAVAILABLE_RESULT_TEXT,
} from '../wording/constants.js';
import { assertNotForkChild } from './guards.js';
import { toolEntryRule } from '../session/tool-allowlist.js';
import { completedTurnPrefix, keepLastUserTurns } from './history.js';

export interface SeedOptions {
  /** 'inherit' (default): the whole history; 'completed-turns': up to the last completed turn. */
  history?: HistoryMode;
  /** 'all' (default) or N: keep only the last N real user turns. */
  forkTurns?: ForkTurns;
  /**
   * The tools the fork may execute: exact names and the MCP forms of fork_tools (`mcp__<server>`,
   * `mcp__*`, `mcp__<server>__<prefix>*`); [] allows none. Declarations are not changed.
   */
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

export type { SeedCase } from '../shapes/seed.js';
export type {
  AiSdkForkSeed,
  AnthropicForkSeed,
  ForkSeed,
  ForkSeedOf,
  GeminiForkSeed,
  OpenAIChatForkSeed,
  OpenAIResponsesForkSeed,
} from '../shapes/registry.js';

/** A fork's seed, in the session's own shape (its type follows the session's: ForkSeedOf). */
export function seedFork<S extends Readonly<ParentSession>>(session: S, directive: string, options: SeedOptions = {}): ForkSeedOf<S> {
  const { history = 'inherit', forkTurns = 'all', allowedTools, spawnTools = [AGENT_TOOL_NAME] } = checkOptions(directive, options);
  const clone = options.copy === false ? shareMessages : deepCopy;
  const childText = buildChildMessage(directive, allowedTools);
  const window = { history, forkTurns, childText, spawnTools: new Set(spawnTools) };
  const dialect = dialectOf(session);
  assertNotForkChild(dialect.messages(session));
  const { head, history: messages } = dialect.split(session);
  const built = seedMessages(dialect, clone(messages as AnyMessage[]), window);
  return dialect.seed(
    session,
    { head, contents: built.contents, shared: built.shared, seedCase: built.seedCase, trimmedMessages: built.dropped },
    // A fresh fork of a session without instructions gets the fork's own.
    { clone, copy: options.copy !== false, systemText: built.seedCase === 'fresh' ? FORK_SYSTEM_TEXT : undefined },
  ) as ForkSeedOf<S>;
}

interface Window {
  history: HistoryMode;
  forkTurns: ForkTurns;
  childText: string;
  spawnTools: ReadonlySet<string>;
}

interface Built<M> {
  contents: M[];
  shared: number;
  seedCase: SeedCase;
  dropped: number;
}

/** The fork rules, in any shape: the window of the history, then where the child message goes. */
function seedMessages<M extends AnyMessage, S>(dialect: Dialect<M, S>, messages: M[], window: Window): Built<M> {
  const base = window.history === 'completed-turns' ? completedTurnPrefix(messages, dialect.splitsTurns) : messages;
  const { kept, dropped } = keepLastUserTurns(base, window.forkTurns);
  const first = kept[0];
  if (dropped > 0 && first !== undefined) {
    // A window that starts at a user message carrying results (Gemini's and Anthropic's shapes put
    // them with the person's words) has left out the calls they answer, and the API refuses a result
    // without its call in the message before. The words stay; the results go with their calls.
    kept[0] = dialect.withoutResults(first);
  }
  return { ...buildContents(dialect, kept, window.childText, window.spawnTools), dropped };
}

/** `history` is a private array here, so it can be reused in the result. */
function buildContents<M extends AnyMessage, S>(
  dialect: Dialect<M, S>,
  history: M[],
  childText: string,
  spawnTools: ReadonlySet<string>,
): Omit<Built<M>, 'dropped'> {
  // Anthropic's API reads consecutive messages of one role as one turn (so does its session schema):
  // a turn's calls may span several assistant messages, and their results several user messages.
  const merged = dialect.mergesTurns;
  // Anthropic's mid-conversation system messages stand right after a user message and must end the
  // request or be followed by an assistant message: at the end, they go with the user message before them.
  const notes = merged ? trailingSystemMessages(history) : [];
  let seedCase: SeedCase = 'continue';
  let results = trailingResults(history, merged);
  const last = history[history.length - 1];
  if (last !== undefined && viewMessage(last).role === 'user' && results === undefined) {
    // A prompt the parent never answered (no results of the last calls in it): that one message
    // (and a system message after it) goes, and the child message takes its place.
    history.pop();
    notes.length = 0;
    seedCase = 'dropped-user';
    results = trailingResults(history, merged);
  }
  const end = history[history.length - 1];
  if (end === undefined) return { contents: [dialect.userText(childText)], shared: 0, seedCase: 'fresh' };
  if (results !== undefined) {
    // Real results of the last calls, which the parent has not answered yet: kept as they are (the
    // calls keep their arguments); a call still without a result gets a placeholder, so every call
    // is answered; then the child message, and the system message that followed the results.
    const { contents, shared } = dialect.completeResults(history, results, placeholders(results, spawnTools), [childText]);
    return { contents: [...contents, ...notes], shared, seedCase: 'tool-results' };
  }
  const start = modelTurnStart(history, history.length - 1, merged);
  const calls = history.slice(start).flatMap((message) => viewMessage(message).calls);
  if (viewMessage(end).role !== 'model' || calls.length === 0) {
    return { contents: [...history, dialect.userText(childText)], shared: history.length, seedCase };
  }
  // Mid-turn: siblings share the call message (agent calls without their arguments) and the
  // placeholders byte for byte; only the child message differs, so nobody sees a sibling's directive.
  for (let i = start; i < history.length; i++) history[i] = dialect.redactCalls(history[i] as M, spawnTools);
  const answer = dialect.answer(calls, placeholders(calls, spawnTools), [childText]);
  return {
    contents: [...history, ...answer.messages, dialect.modelText(FORK_ACK_TEXT), dialect.userText(FORK_BEGIN_TEXT)],
    shared: history.length + answer.shared,
    seedCase: 'mid-turn',
  };
}

/** Takes the system messages at the end of `history` off it, when a user message comes before them; returns them in order. */
function trailingSystemMessages<M extends AnyMessage>(history: M[]): M[] {
  let at = history.length;
  while (at > 0 && viewMessage(history[at - 1] as M).role === 'system') at--;
  const before = history[at - 1];
  if (at === history.length || before === undefined || viewMessage(before).role !== 'user') return [];
  return history.splice(at);
}

/**
 * Where the model turn that ends at `end` starts: `end` itself, or with `merged` (consecutive
 * model messages are one turn) the first of the model messages right before it. `end + 1` when
 * `end` is not a model message.
 */
function modelTurnStart(history: readonly AnyMessage[], end: number, merged: boolean): number {
  const at = history[end];
  if (at === undefined || viewMessage(at).role !== 'model') return end + 1;
  let start = end;
  while (merged && start > 0 && viewMessage(history[start - 1] as AnyMessage).role === 'model') start--;
  return start;
}

/**
 * When the history ends on results of the last model turn's calls (matched by id, or by name
 * without one): the calls still unanswered. undefined when it does not (no results, or results
 * that answer none of them). With `merged`, consecutive user messages of results are one turn's
 * results, and consecutive model messages one turn's calls.
 */
function trailingResults(history: readonly AnyMessage[], merged: boolean): CallView[] | undefined {
  let at = history.length - 1;
  const answers = [];
  // Gemini carries results in one user message; Chat Completions in one tool message each.
  while (at >= 0 && viewMessage(history[at] as AnyMessage).results.length > 0) {
    answers.push(...viewMessage(history[at] as AnyMessage).results);
    at--;
    if (viewMessage(history[at + 1] as AnyMessage).role === 'user' && !merged) break;
  }
  if (answers.length === 0) return undefined;
  const start = modelTurnStart(history, at, merged);
  if (start > at) return undefined;
  const open = history.slice(start, at + 1).flatMap((message) => viewMessage(message).calls);
  let answered = 0;
  for (const result of answers) {
    const i = open.findIndex((call) => (call.id !== undefined && call.id !== '' ? call.id === result.id : call.name === result.name));
    if (i < 0) continue;
    open.splice(i, 1);
    answered++;
  }
  return answered > 0 ? open : undefined;
}

/** One result per call: the reference's fork placeholder for agent calls, "not available" for the rest. */
function placeholders(calls: readonly CallView[], spawnTools: ReadonlySet<string>): ToolResponse[] {
  return calls.map((call) => ({ output: spawnTools.has(call.name) ? FORK_PLACEHOLDER_TEXT : FORK_UNAVAILABLE_RESULT_TEXT }));
}

function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** Arrays stay private (the seed appends to them); their messages are shared. */
function shareMessages<T>(value: T): T {
  // Spread, not slice(): V8 copies a frozen array (a frozen prefix's) ~100× slower with slice.
  return (Array.isArray(value) ? [...value] : value) as T;
}

const SEED_OPTION_KEYS: readonly string[] = ['history', 'forkTurns', 'allowedTools', 'spawnTools', 'copy'] satisfies (keyof SeedOptions)[];

function checkOptions(directive: string, options: SeedOptions): SeedOptions {
  if (typeof directive !== 'string' || directive.trim() === '') {
    throw new TypeError('seedFork: the directive must be a non-empty string');
  }
  const { history, forkTurns, allowedTools, spawnTools } = options;
  for (const key of Object.keys(options)) {
    if (!SEED_OPTION_KEYS.includes(key))
      throw new TypeError(`seedFork: options.${key} is not an option (known: ${SEED_OPTION_KEYS.join(', ')})`);
  }
  if (history !== undefined && history !== 'inherit' && history !== 'completed-turns') {
    throw new TypeError(`seedFork: history must be "inherit" or "completed-turns", not ${JSON.stringify(history)}`);
  }
  if (forkTurns !== undefined && forkTurns !== 'all' && !(Number.isSafeInteger(forkTurns) && forkTurns > 0)) {
    throw new RangeError(`seedFork: forkTurns must be "all" or a positive integer, not ${JSON.stringify(forkTurns)}`);
  }
  if (allowedTools !== undefined && (!Array.isArray(allowedTools) || allowedTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError('seedFork: allowedTools must be an array of tool names');
  }
  // The rules of fork_tools and a task's tools, so the restriction the fork reads is one the host enforces.
  allowedTools?.forEach((entry, i) => {
    const rule = toolEntryRule(entry, 'allowedTools');
    if (rule !== undefined) throw new TypeError(`seedFork: allowedTools[${i}]: ${rule}`);
  });
  if (spawnTools !== undefined && (!Array.isArray(spawnTools) || spawnTools.some((t) => typeof t !== 'string'))) {
    throw new TypeError('seedFork: spawnTools must be an array of tool names');
  }
  return options;
}
