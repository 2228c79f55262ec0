/*
 * A fork's seed, the pieces of its first request, in each shape. The fork rules (src/fork) decide
 * the messages; each shape's dialect puts them together with the session's own fields (seed()).
 */

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

/** What every shape's fork seed holds (each shape's seed, in its folder's request.ts, adds the fields its requests repeat). */
export interface SeedBase<M> {
  /** The session's format: which shape the seed is in. */
  format: string;
  model: string;
  contents: M[];
  /**
   * How many leading entries of `contents` are the same for every fork of this session with the
   * same history mode and forkTurns, whatever the directive: the part that can be cached once for all.
   */
  sharedContents: number;
  seedCase: SeedCase;
  /** Leading parent messages left out by forkTurns: when > 0, the history is no longer the parent's prefix. */
  trimmedMessages: number;
}

/** What the fork rules built, for a dialect to make a seed of. */
export interface SeedParts<M> {
  /** The session's head messages (Chat Completions' leading instructions), as split() gave them. */
  head: readonly M[];
  /** The conversation after the head (which the dialect puts before it). */
  contents: M[];
  /** How many leading entries of `contents` every sibling shares. */
  shared: number;
  seedCase: SeedCase;
  trimmedMessages: number;
}

/** How a dialect copies what it takes from the session into a seed. */
export interface SeedCopy {
  /** Messages and prefix fields: a deep copy, or (copy: false) arrays spread and their values shared. */
  clone<T>(value: T): T;
  /** Whether the seed gets a private deep copy of the session's other fields (false: the session's own). */
  copy: boolean;
  /** The fork's own system prompt, for a seed of a session that has none (a fresh fork); undefined: none is added. */
  systemText?: string | undefined;
}

/**
 * The seed of a shape whose system prompt is a field of the session (Anthropic's and the AI SDK's
 * `system`, the Responses API's `instructions`): its head, then the conversation, with the
 * session's own fields. A fresh fork of a session with neither that field nor leading system
 * messages gets the fork's own system prompt there.
 */
export function seedWithSystemField<M, F extends SeedBase<M> & { session: object }>(
  format: F['format'],
  field: 'system' | 'instructions',
  session: Readonly<{ model: string }>,
  parts: SeedParts<M>,
  how: SeedCopy,
): F {
  const own = (how.copy ? structuredClone(session) : session) as Readonly<Record<string, unknown>>;
  const fresh = own[field] === undefined && parts.head.length === 0 && how.systemText !== undefined;
  return {
    format,
    model: session.model,
    session: fresh ? { ...own, [field]: how.systemText } : own,
    contents: [...how.clone(parts.head as M[]), ...parts.contents],
    sharedContents: parts.head.length + parts.shared,
    seedCase: parts.seedCase,
    trimmedMessages: parts.trimmedMessages,
  } as F;
}

/**
 * The size of what the requests of a seed that carries its session send besides their messages
 * (instructions, tools, settings), in characters: the session without its `messages` and `format`.
 */
export function sessionFieldsChars(session: Readonly<Record<string, unknown>>): number {
  const { messages: _messages, format: _format, ...fields } = session;
  return JSON.stringify(fields).length;
}
