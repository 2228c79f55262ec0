import type { Issues } from './convert-issues.js';
import type { CacheMarks } from './cache-marks.js';
import type { Dialect } from './dialect.js';
import type { HubSession } from './hub.js';
import type { RequestIntake } from './intake.js';
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
  /** A model call's `gen_ai.operation.name` in OpenTelemetry's GenAI conventions: Gemini's API generates content, the others chat. */
  readonly operation: 'chat' | 'generate_content';
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
  /** Where the run's prompt-cache mechanism writes on this shape's requests (markers, breakpoints, a named cache or response). */
  readonly cacheMarks: CacheMarks<M>;
  /** Conversion to and from the neutral hub form: convertSession(from → to) is to.convert.fromHub(from.convert.toHub(session)). */
  readonly convert: ConvertFacet<S>;
}

/**
 * What the main thread alone asks of a shape: checking a session, reading logged requests into one.
 * Apart from the Shape because both take the shape's zod schemas, which a fork's thread never loads:
 * each shape's folder gives them in its loading.ts, listed by shapes/loading.ts.
 */
export interface ShapeLoading<S extends object = object> {
  /**
   * Validates a session of this shape (already a plain JSON object, its format this shape's) and
   * returns that same object; an InputError names the file, the path and the rule broken.
   */
  parse(json: object, source?: string): S;
  /** Reading its logged requests (a request body, or its conversation alone) into a session. */
  readonly intake: RequestIntake;
}

/** A direction a shape does not convert, and why (the parity suite accepts a stated refusal, never a missing facet). */
interface Refusal {
  readonly refused: string;
}

/** How a shape converts: each direction a function, or a Refusal saying why not. */
export interface ConvertFacet<S extends object = object> {
  /** Reads a valid session of this shape into the hub; what no other shape holds travels as opaque items, reported by the target. */
  readonly toHub: ((session: Readonly<S>, issues: Issues) => HubSession) | Refusal;
  /** Writes the hub as a session of this shape; what it cannot represent goes to `issues` (an error, or dropped and listed). */
  readonly fromHub: ((hub: HubSession, issues: Issues) => S) | Refusal;
  /** How many function tools a session of this shape declares. */
  toolCount(session: Readonly<S>): number;
}
