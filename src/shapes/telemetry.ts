/** A request of any shape (each shape's facet reads its own). */
type AnyRequest = { readonly format: string };

/*
 * A shape's messages as the GenAI semantic conventions' opt-in content attributes shape them
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`: `{ role,
 * parts: [{ type, … }] }`). Telemetry is read by people and never feeds a request, so parts are
 * mapped loosely; binary parts (images, files) are named by their kind, never copied. Each shape
 * implements it in its folder (telemetry.ts); call-content.ts asks the registry.
 */

export type ConventionPart = Record<string, unknown> & { type: string };

export interface ConventionMessage {
  role: string;
  parts: ConventionPart[];
}

/** The shape's `telemetry` facet. */
export interface TelemetryContent {
  /** A request's messages, and its system instructions when it has them apart (Gemini's, Anthropic's and the AI SDK's `system`, the Responses API's `instructions`). */
  request(request: AnyRequest): { messages: ConventionMessage[]; system?: ConventionPart[] };
  /** A reply of the model (a message of this shape, or a Responses turn). */
  reply(message: unknown): ConventionMessage;
}

export function textPart(content: string): ConventionPart {
  return { type: 'text', content };
}

/** A call's arguments as the model wrote them: JSON when they are, else the text. */
export function jsonOrText(value: string | undefined): unknown {
  if (value === undefined) return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
