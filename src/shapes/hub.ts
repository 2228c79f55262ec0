/*
 * The neutral hub form every conversion goes through: a session's source shape reads it into a
 * HubSession (its convert facet's toHub), the target shape writes it out (fromHub), so no shape
 * knows another. The hub holds what more than one shape can say — system text, text, thoughts,
 * function calls and their results, media, function tools, tool choice and the sampling and
 * output settings — in the source's order, and keeps beside each thing where it stood in the
 * source (its path) and what the source called it, so a target that cannot represent it names
 * the source's path (`history[3].parts[1]: inlineData cannot be converted to openai-chat`).
 * What no shape but the source can hold travels as an Opaque item, reported by every target.
 */

/** Something of the source that the hub has no neutral place for: every target lists it as unsupported (or throws). */
export interface Opaque {
  path: string;
  what: string;
  /** Why, when it helps; a function of the target's format when the reason names it. */
  why?: string | ((target: string) => string);
}

/** How the source wrote a message's text, when its shape has a choice (Gemini's has none: parts). */
type TextForm = 'string' | 'parts';

export type HubPart = HubText | HubThought | HubRefusal | HubCall | HubResult | HubMedia | HubOpaque;

interface PartBase {
  /** Where the part is in the source session. */
  path: string;
  /** Fields of the part no target takes (reported when the part is written). */
  extras: Opaque[];
}

export interface HubText extends PartBase {
  kind: 'text';
  text: string;
  /** An OpenAI prompt_cache_breakpoint on the part, as the source had it. */
  cacheBreakpoint?: unknown;
}

/** The model's reasoning, with the provider's signature when it gave one (only that provider takes it back). */
interface HubThought extends PartBase {
  kind: 'thought';
  text: string;
  signature?: string;
}

/** A refusal the model gave instead of an answer. */
interface HubRefusal extends PartBase {
  kind: 'refusal';
  text: string;
}

/** A function call; its arguments as the source held them (a JSON object, or the text of one). */
export interface HubCall extends PartBase {
  kind: 'call';
  id?: string;
  name: string;
  args: { json: Record<string, unknown> | undefined } | { text: string; path: string };
  /** The path errors about the call's id name. */
  idPath: string;
}

/** What a function returned. */
export type HubOutput =
  /** A structured response (Gemini's `response` object). */
  | { json: Record<string, unknown> }
  /** Text, as the source wrote it: one string, or text parts. */
  | { text: string }
  | { parts: (HubText | HubMedia)[] }
  /** An error the tool reported, as text. */
  | { error: string };

export interface HubResult extends PartBase {
  kind: 'result';
  /** The id of the call it answers (Gemini may leave it out: then it answers by name). */
  id?: string;
  /** The function's name, when the source says it (Chat Completions' tool message does not). */
  name?: string;
  output: HubOutput;
  /** The path errors about the call it answers name (its name, or its call id). */
  namePath: string;
}

/** An image, a document or a sound: inline data, a URL, or a file the provider stores. */
export interface HubMedia extends PartBase {
  kind: 'media';
  media: 'image' | 'file' | 'audio';
  /** What the source called it (`inlineData`, `image_url`, `input_image`, `image`): errors name it. */
  what: string;
  mimeType?: string;
  /** Inline base64 data (with its mimeType). */
  data?: string;
  /** An OpenAI file part's file_data, as it was given. */
  fileData?: string;
  url?: string;
  fileId?: string | null;
  fileUrl?: string;
  filename?: string;
  detail?: string;
  cacheBreakpoint?: unknown;
}

/** A part of the source no other shape has (executable code, a reasoning item, an item reference). */
interface HubOpaque extends PartBase {
  kind: 'opaque';
  what: string;
  why?: Opaque['why'];
}

export interface HubMessage {
  /** system and developer messages stand where the source put them; a target with one system prompt takes the leading ones. */
  role: 'system' | 'developer' | 'user' | 'model';
  parts: HubPart[];
  /** Where the message is in the source (`history[3]`, `messages[2]`), or the field it came from (`systemInstruction`). */
  path: string;
  extras: Opaque[];
  textForm?: TextForm;
  /** The source writes a model message without text as `content: null` (a Responses turn of calls). */
  nullWhenEmpty?: boolean;
}

/** A setting as the source held it: its value, the path of the object that held it, and its name there. */
interface HubSetting<T> {
  value: T;
  path: string;
  what: string;
  extras?: Opaque[];
  /** Where the value itself is, when errors about it name another place (`generationConfig.thinkingConfig`, `thinkingBudget`). */
  inner?: { path: string; what: string };
}

export interface HubTool {
  name: string;
  description?: string | null;
  /** The parameters' JSON Schema; undefined when the source gave none (an empty parameter list). */
  parameters?: Record<string, unknown>;
  /** Strict schema adherence: true, false, or null (the Responses API's default, strict). undefined: the source has no such flag. */
  strict?: boolean | null;
  /** Where the tool is in the source, and where its fields are (`tools[0].function` in Chat Completions). */
  path: string;
  fieldsPath: string;
  extras: Opaque[];
}

export type HubToolChoice =
  | { kind: 'auto' | 'none' | 'required' }
  | { kind: 'function'; name: string }
  | { kind: 'allowed'; mode: 'auto' | 'required'; names: string[]; what: string };

export interface HubResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  name?: string;
  description?: string;
  schema?: Record<string, unknown>;
  strict?: boolean | null;
  /** Where a json_schema's fields sit in the source (errors about them name it). */
  schemaPath: string;
}

export interface HubSession {
  model: string;
  messages: HubMessage[];
  tools: HubTool[];
  /** Fields of the source's tool list no target takes (a Gemini googleSearch tool). */
  toolExtras: Opaque[];
  toolChoice?: HubSetting<HubToolChoice>;
  /** Fields of the source's tool choice no target takes. */
  toolChoiceExtras: Opaque[];
  settings: HubSettings;
  /** Settings of the source no target takes (Gemini's generationConfig keys the hub has no place for). */
  settingExtras: Opaque[];
  /** Session fields no target takes, reported first. */
  extras: Opaque[];
  /** The source's conversation field, for errors about the conversation as a whole. */
  conversation: string;
}

/** The note a target gives when the source's items carried a response's own bookkeeping. */
export function bookkeepingNote(count: number, messages: string): string {
  return `${count} item ids, statuses and logprobs left out: what a response reports about its own items, which ${messages} do not carry`;
}

/** Every call id of a hub's messages (a made-up id never takes one). */
export function hubCallIds(hub: HubSession): string[] {
  return hub.messages.flatMap((message) => message.parts.flatMap((part) => (part.kind === 'call' && part.id ? [part.id] : [])));
}

/** The source's word for a part, as errors name it. */
export function partWhat(part: HubPart): string {
  switch (part.kind) {
    case 'media':
    case 'opaque':
      return part.what;
    case 'call':
      return 'functionCall';
    case 'result':
      return 'functionResponse';
    default:
      return part.kind;
  }
}

export interface HubSettings {
  temperature?: HubSetting<unknown>;
  topP?: HubSetting<unknown>;
  topK?: HubSetting<unknown>;
  /** The output token limit; countsReasoning says whether the source's limit counts reasoning tokens (max_completion_tokens, max_output_tokens). */
  maxOutputTokens?: HubSetting<unknown> & { countsReasoning: boolean };
  stop?: HubSetting<unknown>;
  seed?: HubSetting<unknown>;
  responseFormat?: HubSetting<HubResponseFormat | null>;
  /** A thinking budget in tokens (0: thinking off). */
  thinkingBudget?: HubSetting<unknown>;
  reasoningEffort?: HubSetting<unknown>;
  parallelToolCalls?: HubSetting<unknown>;
  promptCacheOptions?: HubSetting<unknown>;
  promptCacheRetention?: HubSetting<unknown>;
  /** How many ids, statuses and logprobs of a response's own items the source held, which no message of another shape carries. */
  bookkeeping?: number;
}
