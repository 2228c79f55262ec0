/*
 * Reading a shape's logged requests (a request body as a client sent it, or its conversation
 * alone) into a session of that shape: the facet each shape implements (its folder's import.ts),
 * which the importers (src/import/) ask the registry for. The session it reads is not yet
 * validated: the shape's session schema does that, once, and only what the API itself would
 * refuse is an error.
 */

/** A record (or field) of the source left out of the session, and why. */
export interface DroppedRecord {
  /** 1-based line of a JSONL record. */
  line?: number;
  /** Where it was in a JSON document (`messages[3]`), or which field of a record. */
  path?: string;
  /** What it was: `a "ui_telemetry" system record`, `an info message`, … */
  what: string;
  reason: string;
  /** A message record of the conversation (not bookkeeping, not a field): counted for the left-out warning. */
  message?: boolean;
}

/** Where a message of the result came from, so an error in it can name the source's line and field. */
export interface MessageOrigin {
  line?: number;
  /** The field of that record (or path in the document) the message was made from: `message`, `messages[4]`. */
  path: string;
  /** The message is that field, unchanged: a path inside it is the same path inside the source. */
  exact: boolean;
}

/** What a shape read of one logged request. */
export interface RequestRead {
  /** The session in the shape's own form (its `format` set, the model left as the body has it). */
  session: Record<string, unknown>;
  /** The source in words: `an OpenAI Chat Completions request body`. */
  kind: string;
  /** The model the body names. */
  model?: { name: string; from: 'file' };
  dropped: DroppedRecord[];
  /** Per message of the session, where in the body it came from. */
  origins: MessageOrigin[];
  /** Facts worth a line of their own (a max_tokens forkpool chose, state kept at the provider). */
  notes: string[];
}

/**
 * How a JSON document looks to a shape as a logged request of its own: `distinctive`, something
 * only this shape's API has shows (a field, a role or a kind of content part); `foreign`, something
 * this shape's API has no such kind of shows (a role or a part type). Undefined: not this shape's
 * form at all (no conversation where this shape keeps it).
 */
export interface RequestClaim {
  distinctive: boolean;
  foreign: boolean;
}

/** A shape's reading of its logged requests. */
export interface RequestIntake {
  /** How `json` looks as a logged request of this shape (see RequestClaim); the importer weighs every shape's claim. */
  claim(json: unknown): RequestClaim | undefined;
  /** Reads a logged request (or its conversation) as the API reads it; a body that is not one is an InputError naming the file. */
  read(json: unknown, file: string | undefined): RequestRead;
  /** What such a request looks like, for the refusal that lists what was tried: `a request body { "messages", … } or a messages array`. */
  readonly looks: string;
  /** The model a session read from a body that names none runs on. */
  readonly defaultModel: string;
}
