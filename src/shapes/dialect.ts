import type { SeedBase, SeedCopy, SeedParts } from './seed.js';
import type { AnyMessage, CallView } from './view.js';

/** What a tool call came to, as the model reads it: `{ output }` or `{ error }`. */
export type ToolResponse = Readonly<Record<string, unknown>>;

/** What every shape's request has: its format (each shape's request type, in its folder's request.ts, is the rest). */
interface WireRequest {
  readonly format: string;
}

/**
 * How forks write in one API's shape. Everything a fork adds to the parent's conversation is made
 * here, in the parent's own shape; what the parent sent is passed through untouched. `R` is the
 * shape's request, `F` its fork seed (the registry's ModelRequest and ForkSeed are their unions).
 */
export interface Dialect<M extends AnyMessage, S, R extends WireRequest = WireRequest, F extends SeedBase<M> = SeedBase<M>> {
  readonly format: string;
  /**
   * The session's messages: `head` is what every fork keeps whatever its window (Chat Completions'
   * leading system and developer messages; Gemini keeps its system instruction in a field of its
   * own), `history` the conversation the fork rules work on.
   */
  split(session: Readonly<S>): { head: readonly M[]; history: readonly M[] };
  /** All the session's messages, in order. */
  messages(session: Readonly<S>): readonly M[];
  /** The session with other messages and tools; every other field, and the key order, kept. */
  withConversation(session: Readonly<S>, messages: readonly M[], tools: readonly unknown[] | undefined): S;
  /** The session's tools array (undefined when it declares none). */
  tools(session: Readonly<S>): readonly unknown[] | undefined;
  /** The `tools` entry that declares one function, in this API's shape. */
  declareFunction(declaration: FunctionDeclaration): unknown;
  userText(text: string): M;
  modelText(text: string): M;
  /**
   * The message without the results it carries (the same message when it has none): what a
   * forkTurns window keeps of the user message it starts at, whose results answer calls the window
   * left out (every API refuses a result without its call in the message before).
   */
  withoutResults(message: M): M;
  /** The model message with the arguments of these tools' calls emptied (they hold a sibling's directive). */
  redactCalls(message: M, tools: ReadonlySet<string>): M;
  /**
   * The messages that answer `calls` (one response each), then the user's `texts`, if any.
   * `shared`: how many leading messages do not depend on `texts`.
   */
  answer(calls: readonly CallView[], responses: readonly ToolResponse[], texts: readonly string[]): { messages: M[]; shared: number };
  /** `history` ends on results of some of the last calls: answer the others too, then add `texts`. */
  completeResults(
    history: readonly M[],
    calls: readonly CallView[],
    responses: readonly ToolResponse[],
    texts: readonly string[],
  ): { contents: M[]; shared: number };
  /** A request with the session's own fields (tools, settings: its objects, in its order) and these messages. */
  request(fields: Readonly<S>, messages: readonly M[]): R;
  /** Consecutive messages of one role are one turn, as the API reads them (Anthropic's: a turn's calls may span several). */
  readonly mergesTurns: boolean;
  /**
   * One response of the model is written as several messages (the Responses API's items: its text
   * and each call apart), so a model message followed by another is not a turn of its own.
   */
  readonly splitsTurns: boolean;
  /** A fork's seed: the session's head, then the conversation the fork rules built, with the session's own fields. */
  seed(session: Readonly<S>, parts: SeedParts<M>, how: SeedCopy): F;
  /** A request of one of this shape's seeds with these messages: the seed's own fields, in their order. */
  seedRequest(seed: F, messages: readonly M[]): R;
  /** The size of what a seed's requests send besides their messages (instructions, tools, settings), in characters. */
  seedFieldsChars(seed: F): number;
}

/**
 * A function declaration as Gemini takes it (`tools[].functionDeclarations[]`). A type, not an
 * interface: it must fit a session's open records (`GeminiSession`'s tools take any field).
 */
export type FunctionDeclaration = {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
};
