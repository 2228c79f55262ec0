import type { Dialect } from './dialect.js';
import type { TelemetryContent } from './telemetry.js';
import type { AnyMessage, MessageReader } from './view.js';

/**
 * One API shape: everything forkpool knows of that API's wire form sits in the shape's folder and
 * is reached through this object, which the registry (registry.ts) lists. Code outside the folder
 * asks the registry for the shape of a session, a request or a format name and calls its facets;
 * it never compares a format to a value of its own.
 */
export interface Shape<S extends object = object, M extends AnyMessage = AnyMessage> {
  /** The session's `format` (the default shape's may be absent from a session). */
  readonly format: string;
  /** The shape in words, for messages that name a session's shape: `OpenAI Chat Completions' shape ("format": "openai-chat")`. */
  readonly label: string;
  /** The API in words, for messages that name what a provider speaks: `OpenAI's Chat Completions API`. */
  readonly api: string;
  /**
   * Validates a session of this shape (already a plain JSON object, its format this shape's) and
   * returns that same object; an InputError names the file, the path and the rule broken.
   */
  parse(json: object, source?: string): S;
  /** The session field that holds the conversation (`history`, `messages`, `input`): what an error's path names. */
  readonly conversationField: string;
  /** The session's conversation in order, whatever the shape calls it (a string input is the one user message it reads as). */
  messages(session: Readonly<S>): readonly unknown[];
  /** How forks write in this shape: seeding, the child message, views of calls and results, the request body. */
  readonly dialect: Dialect<M, S>;
  /**
   * How its messages are read (its view.ts): who wrote one, its parts in order, its calls and the
   * results with their text and error flag. The fork rules, stream-json, transcripts and the
   * parent's page read messages only through it.
   */
  readonly reader: MessageReader<M>;
  /** Its requests and replies as the GenAI conventions' `{ role, parts }` messages, for telemetry's opt-in content (its telemetry.ts). */
  readonly telemetry: TelemetryContent;
}
