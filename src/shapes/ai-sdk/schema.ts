import type { CallSettings, ModelMessage, Prompt, ToolChoice } from 'ai';
import { z } from 'zod';
import { describeValue } from '../../input/issues.js';
import { checkSessionObject } from '../../input/session-object.js';
import { byJsonType, byKind, kindOf, nonEmpty, positiveInteger, pushIssuesOf, strictFields } from '../../input/rules.js';
import type { Assert, Assignable, SameKeys } from '../../input/type-checks.js';

/*
 * A parent session in the Vercel AI SDK's shape (`"format": "ai-sdk"`): what an agent passes to
 * `generateText`/`streamText` of `ai` 6.x (the `messages` form of its Prompt, tools as JSON
 * schemas, the call settings that are data), as JSON. Message and part types are
 * @ai-sdk/provider-utils' ModelMessage, TextPart, ImagePart, FilePart, ReasoningPart, ToolCallPart,
 * ToolResultPart, ToolResultOutput, ToolApprovalRequest and ToolApprovalResponse; the settings are
 * `ai`'s CallSettings. The model is the model's id only (reports, prices): the provider descriptor
 * makes the AI SDK model, and each provider package renders the bytes it sends.
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Messages, parts, tool outputs and tools are strict: a field the AI SDK does not type is an error,
 * not something quietly dropped. Opaque values (a call's `input`, a `json` output's `value`,
 * providerOptions, an `inputSchema` beyond its `"type": "object"`) are only checked to be JSON.
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 *
 * Decisions:
 * - Binary data is a string: JSON has no Uint8Array, Buffer, ArrayBuffer or URL objects. An image
 *   part's `image` and a file part's `data` are a URL (what `new URL()` parses, as the AI SDK reads
 *   strings) or base64 data (anything else is, to the AI SDK; a string that cannot be base64, such
 *   as a file path, is refused). A tool output's `url` must be a URL too (the SDK parses it).
 * - `{ "role": "system" }` messages in `messages` are accepted anywhere, beside `system` or
 *   without it: the AI SDK takes them (with a warning unless `allowSystemInMessages`), and the fork
 *   rules keep leading ones as the session's head. Whether a provider takes one mid-conversation is
 *   the provider package's rule (Anthropic's refuses system messages after the conversation starts).
 * - Calls and results pair as the AI SDK's MissingToolResultsError and tool-approval checks read
 *   them: a tool message follows the assistant message whose calls it answers (or another tool
 *   message), each result answers a call of that assistant message, once, with the call's toolName.
 *   Consecutive assistant messages are separate turns (the AI SDK and its provider packages for
 *   Chat Completions send them so; Anthropic's schema merges them, as its API does). A call may
 *   stay unanswered only in the last assistant message with nothing but tool messages after it: a
 *   parent mid-turn, whose calls the fork rules answer (the AI SDK would refuse them unanswered,
 *   and no fork sends them so). Provider-executed calls (`providerExecuted: true`) are the
 *   exception: their results are tool-result parts of an assistant message (the one with the call,
 *   or a later one), and they need none.
 * - toolCallIds are unique in a session, and so are approvalIds; an approval request names a call
 *   before it, and an approval response answers a request of an earlier assistant message, once
 *   (the AI SDK throws on a response without its request, and on a request without its call).
 * - Empty content (`""`, `[]`) is accepted where the AI SDK's types allow it: its provider packages
 *   decide what such a message becomes.
 * - A tool's name is its key in `tools`: at most 64 letters, digits, _ and -, starting with a letter
 *   or _ (OpenAI's and Anthropic's rule, with Gemini's first character, as forkpool's tools module
 *   names tools). A tool is `{ description, inputSchema, providerOptions, strict }`: its JSON Schema
 *   as data (the session's runner wraps it in `jsonSchema()`); `execute` and the other functions
 *   are the runner's.
 * - Settings are typed as CallSettings types them: no nulls. `maxRetries`, `abortSignal`,
 *   `headers` and `timeout` are not a session's (forkpool retries, cancels and times its own
 *   calls; keys and headers belong to the provider descriptor), nor are `stopWhen`, `prepareStep`
 *   and the other functions.
 * - A misnamed field with a hint (AI SDK 4's `args`, `result`, `maxTokens`; `prompt`; other shapes'
 *   names) is reported before a field it stands in for is reported missing.
 * - At the end of the file, compile-time checks hold the schema to the AI SDK's own types (`ai` is
 *   imported for types only: it is an optional peer, and the emitted .d.ts does not name it).
 */

/** Every field an ai-sdk session takes. */
export const AI_SDK_SESSION_KEYS: readonly string[] = [
  'format',
  'model',
  'system',
  'messages',
  'tools',
  'toolChoice',
  'providerOptions',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'stopSequences',
  'seed',
];

/** A JSON value as the AI SDK types it (JSONValue: an object's member may be undefined, which JSON leaves out). */
type JsonValue = null | string | number | boolean | JsonValue[] | JsonObject;
type JsonObject = { [key: string]: JsonValue | undefined };

/*
 * The schemas are built on first use, not when the module loads: a process (or a fork's thread)
 * that never checks a session of this shape does not pay for building them.
 */
function build() {
  // ── JSON values ─────────────────────────────────────────────────────────────────────────────────

  type Path = (string | number)[];

  /** What JSON cannot carry at `value` or inside it (a function, a Date, a Uint8Array, NaN, undefined in an array…), with its path. */
  function notJson(value: unknown, path: Path): { path: Path; what: string } | undefined {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
    if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, what: String(value) };
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const found = item === undefined ? { path: [...path, i], what: 'undefined' } : notJson(item, [...path, i]);
        if (found) return found;
      }
      return undefined;
    }
    if (typeof value === 'object') {
      // A plain object's prototype is Object.prototype (of any realm: a worker's too), or null.
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== null && Object.getPrototypeOf(proto) !== null) {
        const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
        return { path, what: typeof name === 'string' && name !== '' ? `a ${name} object` : 'an object that is not plain data' };
      }
      for (const [key, item] of Object.entries(value)) {
        // JSON.stringify leaves an undefined member out, as the AI SDK's JSONObject allows.
        const found = item === undefined ? undefined : notJson(item, [...path, key]);
        if (found) return found;
      }
      return undefined;
    }
    return { path, what: value === undefined ? 'undefined' : `a ${typeof value}` };
  }

  function pushNotJson(value: unknown, issues: z.core.$ZodRawIssue[]): void {
    const found = notJson(value, []);
    if (found) issues.push({ code: 'custom', input: value, path: found.path, message: `must be JSON data, not ${found.what}` });
  }

  /** Any JSON value, required (`what` says what it is, in the rule for a missing one). */
  const jsonValue = (what: string) =>
    z.custom<JsonValue>().check((ctx) => {
      if (ctx.value === undefined) ctx.issues.push({ code: 'custom', input: undefined, message: `is required (${what}: any JSON value)` });
      else pushNotJson(ctx.value, ctx.issues);
    });

  // ── Strict objects with hints, and kinds ────────────────────────────────────────────────────────

  /**
   * `schema`, but a misnamed field gets its hint before anything else is said: zod reports a missing
   * field before an unknown one, so AI SDK 4's `args` would otherwise read as "input: is required".
   */
  function hintsFirst<S extends z.ZodType>(schema: S, hints: Record<string, string>): z.ZodCustom<z.input<S>, z.input<S>> {
    return z.custom<z.input<S>>().check((ctx) => {
      const value: unknown = ctx.value;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const key = Object.keys(value).find((k) => Object.hasOwn(hints, k));
        if (key !== undefined) {
          ctx.issues.push({ code: 'custom', input: value, path: [key], message: hints[key] ?? '' });
          return;
        }
      }
      pushIssuesOf(schema, value, ctx.issues);
    });
  }

  /** A strict object (an unknown field is named, with the fields it takes), misnamed fields hinted first. */
  function strict<const S extends z.core.$ZodLooseShape>(what: string, shape: S, hints: Record<string, string> = {}) {
    return hintsFirst(z.strictObject(shape, strictFields(what, Object.keys(shape))), hints);
  }

  /** `{ "<provider>": { …JSON } }`: options passed through to the provider package. */
  const providerOptions = z
    .custom<Record<string, JsonObject>>()
    .check((ctx) => {
      const value: unknown = ctx.value;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `must be a JSON object of provider names to their options ({ "openai": { … } }), not ${describeValue(value)}`,
        });
        return;
      }
      for (const [provider, options] of Object.entries(value)) {
        if (options === null || typeof options !== 'object' || Array.isArray(options)) {
          ctx.issues.push({
            code: 'custom',
            input: options,
            path: [provider],
            message: `the options of the provider "${provider}" must be a JSON object, not ${describeValue(options)}`,
          });
          return;
        }
      }
      pushNotJson(value, ctx.issues);
    })
    .optional();

  // ── Content parts ───────────────────────────────────────────────────────────────────────────────

  const BASE64 = /^[A-Za-z0-9+/_\s-]*={0,2}\s*$/;

  /** An image's or a file's data: a URL or base64 (the AI SDK reads a string that is not a URL as base64). */
  const dataOf = z.custom<string>().check((ctx) => {
    const value: unknown = ctx.value;
    const rule =
      value === undefined
        ? 'is required (base64 data or a URL)'
        : typeof value !== 'string'
          ? `must be a string (base64 data or a URL), not ${describeValue(value)}: JSON has no Uint8Array, Buffer or URL objects, so encode the bytes as base64`
          : value === ''
            ? 'must not be empty (base64 data or a URL)'
            : URL.canParse(value) || BASE64.test(value)
              ? undefined
              : 'must be base64 data or a URL (https:, data:…): the AI SDK reads a string that is not a URL as base64, and this one is not (a file path is neither: read the file and encode it)';
    if (rule) ctx.issues.push({ code: 'custom', input: value, message: rule });
  });

  const MEDIA_TYPE_HINT = 'is the AI SDK 4 name: AI SDK 5+ calls it "mediaType"';

  const TextPartSchema = strict('a text part', { type: z.literal('text'), text: z.string(), providerOptions });

  const ImagePartSchema = strict(
    'an image part',
    { type: z.literal('image'), image: dataOf, mediaType: z.string().optional(), providerOptions },
    {
      mimeType: MEDIA_TYPE_HINT,
      data: 'an image part holds its data or URL in "image" (a file part holds it in "data")',
      url: 'an image part holds its URL in "image"',
    },
  );

  const FilePartSchema = strict(
    'a file part',
    {
      type: z.literal('file'),
      data: dataOf,
      filename: z.string().optional(),
      mediaType: z.string({
        error: (iss) =>
          iss.input === undefined
            ? 'is required (the file\'s IANA media type, e.g. "application/pdf")'
            : `must be a string (an IANA media type), not ${describeValue(iss.input)}`,
      }),
      providerOptions,
    },
    {
      mimeType: MEDIA_TYPE_HINT,
      image: 'a file part holds its data or URL in "data" (an image part holds it in "image")',
      url: 'a file part holds its URL in "data"',
    },
  );

  const ReasoningPartSchema = strict(
    'a reasoning part',
    { type: z.literal('reasoning'), text: z.string(), providerOptions },
    {
      signature:
        'is AI SDK 4\'s: AI SDK 5+ keeps a reasoning signature in the part\'s providerOptions (e.g. { "anthropic": { "signature" } })',
      reasoning: 'a reasoning part holds its text in "text"',
    },
  );

  const ToolCallPartSchema = strict(
    'a tool-call part',
    {
      type: z.literal('tool-call'),
      toolCallId: nonEmpty('a toolCallId'),
      toolName: nonEmpty('a tool name'),
      // Kept as the model wrote it (the provider package renders it).
      input: jsonValue("the call's arguments"),
      providerOptions,
      providerExecuted: z.boolean().optional(),
    },
    {
      args: 'is the AI SDK 4 name: AI SDK 5+ tool-call parts carry the arguments in "input"',
      id: 'a tool-call part carries its id in "toolCallId"',
      name: 'a tool-call part carries the tool\'s name in "toolName"',
      arguments: 'is OpenAI\'s: AI SDK tool-call parts carry the arguments in "input" (as JSON, not a string of it)',
    },
  );

  // Tool outputs (ToolResultOutput) and the items of a "content" output.

  const fileId = byJsonType('a string or a JSON object of provider names to file ids', {
    string: z.string(),
    object: z.record(z.string(), z.string()),
  });

  const urlOf = z.string().check((ctx) => {
    if (!URL.canParse(ctx.value))
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'must be a URL (the AI SDK parses it with new URL())' });
  });

  const ContentItemSchema = byKind('type', 'a content item', {
    text: strict('a "text" item', { type: z.literal('text'), text: z.string(), providerOptions }),
    media: strict('a "media" item', { type: z.literal('media'), data: z.string(), mediaType: z.string() }),
    'file-data': strict('a "file-data" item', {
      type: z.literal('file-data'),
      data: z.string(),
      mediaType: z.string(),
      filename: z.string().optional(),
      providerOptions,
    }),
    'file-url': strict('a "file-url" item', { type: z.literal('file-url'), url: urlOf, mediaType: z.string().optional(), providerOptions }),
    'file-id': strict('a "file-id" item', { type: z.literal('file-id'), fileId, providerOptions }),
    'image-data': strict('an "image-data" item', {
      type: z.literal('image-data'),
      data: z.string(),
      mediaType: z.string(),
      providerOptions,
    }),
    'image-url': strict('an "image-url" item', { type: z.literal('image-url'), url: urlOf, providerOptions }),
    'image-file-id': strict('an "image-file-id" item', { type: z.literal('image-file-id'), fileId, providerOptions }),
    custom: strict('a "custom" item', { type: z.literal('custom'), providerOptions }),
  });

  const ToolResultOutputSchema = byJsonType('a tool output ({ "type": "text", "value" }, { "type": "json", "value" }, …)', {
    object: byKind('type', 'a tool output', {
      text: strict('a "text" output', { type: z.literal('text'), value: z.string(), providerOptions }),
      json: strict('a "json" output', { type: z.literal('json'), value: jsonValue('the output'), providerOptions }),
      'execution-denied': strict('an "execution-denied" output', {
        type: z.literal('execution-denied'),
        reason: z.string().optional(),
        providerOptions,
      }),
      'error-text': strict('an "error-text" output', { type: z.literal('error-text'), value: z.string(), providerOptions }),
      'error-json': strict('an "error-json" output', { type: z.literal('error-json'), value: jsonValue('the error'), providerOptions }),
      content: strict('a "content" output', {
        type: z.literal('content'),
        value: z.array(ContentItemSchema, { error: 'must be an array of content items ({ "type": "text", "text" }, …)' }),
      }),
    }),
  });

  const ToolResultPartSchema = strict(
    'a tool-result part',
    {
      type: z.literal('tool-result'),
      toolCallId: nonEmpty('a toolCallId'),
      toolName: nonEmpty('a tool name'),
      output: ToolResultOutputSchema,
      providerOptions,
    },
    {
      result:
        'is the AI SDK 4 name: AI SDK 5+ tool-result parts carry "output" ({ "type": "text", "value" }, { "type": "json", "value" }, …)',
      isError: 'is AI SDK 4\'s: AI SDK 5+ gives an error as an output of type "error-text" or "error-json"',
      content: 'a tool-result part carries the result in "output" ({ "type": "text", "value" }, { "type": "json", "value" }, …)',
    },
  );

  const ToolApprovalRequestSchema = strict('a tool-approval-request part', {
    type: z.literal('tool-approval-request'),
    approvalId: nonEmpty('an approvalId'),
    toolCallId: nonEmpty('a toolCallId'),
    signature: z.string().optional(),
    inputSchemaInput: jsonValue('the input before validation').optional(),
  });

  const ToolApprovalResponseSchema = strict('a tool-approval-response part', {
    type: z.literal('tool-approval-response'),
    approvalId: nonEmpty('an approvalId'),
    approved: z.boolean(),
    reason: z.string().optional(),
    providerExecuted: z.boolean().optional(),
  });

  // ── Messages ────────────────────────────────────────────────────────────────────────────────────

  const REASONING_IN_USER = "reasoning parts are the model's: they go in assistant messages";
  const CALL_ELSEWHERE = 'a tool-call part is the model\'s call: it goes in an assistant message (a "tool" message answers it)';
  const RESULT_IN_TOOL_MESSAGE = 'a tool-result part goes in a "tool" message (it answers a tool-call of the assistant message before it)';
  const RESPONSE_IN_TOOL_MESSAGE = 'a tool-approval-response part goes in a "tool" message';
  const OTHER_SHAPES: Record<string, string> = {
    tool_use: 'is Anthropic\'s: an AI SDK call is a { "type": "tool-call" } part',
    tool_result: 'is Anthropic\'s: an AI SDK result is a { "type": "tool-result" } part in a "tool" message',
    image_url: 'is OpenAI\'s: an AI SDK image is a { "type": "image", "image" } part',
    'redacted-reasoning': 'is AI SDK 4\'s: AI SDK 5+ keeps redacted reasoning in a "reasoning" part\'s providerOptions',
  };

  /** A content array of the parts this role takes. */
  function partsOf<K extends Record<string, z.ZodType>>(kinds: K, refused: Record<string, string>) {
    return z.array(byKind('type', 'a content part', kinds, { ...OTHER_SHAPES, ...refused }));
  }

  const userContent = byJsonType('a string or an array of text, image and file parts', {
    string: z.string(),
    array: partsOf(
      { text: TextPartSchema, image: ImagePartSchema, file: FilePartSchema },
      {
        reasoning: REASONING_IN_USER,
        'tool-call': CALL_ELSEWHERE,
        'tool-result': RESULT_IN_TOOL_MESSAGE,
        'tool-approval-request': 'a tool-approval-request part goes in the assistant message, after the tool-call it asks about',
        'tool-approval-response': RESPONSE_IN_TOOL_MESSAGE,
      },
    ),
  });

  const assistantContent = byJsonType(
    'a string or an array of text, file, reasoning, tool-call, tool-result and tool-approval-request parts',
    {
      string: z.string(),
      array: partsOf(
        {
          text: TextPartSchema,
          file: FilePartSchema,
          reasoning: ReasoningPartSchema,
          'tool-call': ToolCallPartSchema,
          'tool-result': ToolResultPartSchema,
          'tool-approval-request': ToolApprovalRequestSchema,
        },
        {
          image: 'an assistant message takes no image part: an image the model made is a { "type": "file" } part',
          'tool-approval-response': RESPONSE_IN_TOOL_MESSAGE,
        },
      ),
    },
  );

  const toolContent = byJsonType('an array of tool-result and tool-approval-response parts', {
    array: partsOf(
      { 'tool-result': ToolResultPartSchema, 'tool-approval-response': ToolApprovalResponseSchema },
      {
        text: 'a "tool" message holds only tool-result and tool-approval-response parts: a tool\'s text goes in its result\'s "output" ({ "type": "text", "value" })',
        'tool-call': CALL_ELSEWHERE,
        'tool-approval-request': 'a tool-approval-request part goes in the assistant message, after the tool-call it asks about',
        reasoning: REASONING_IN_USER,
      },
    ),
  });

  const MESSAGE_HINTS: Record<string, string> = {
    parts:
      'is a UIMessage field (useChat): a session holds ModelMessages, { "role", "content" }; convert UI messages with convertToModelMessages()',
    id: 'is not a ModelMessage field (UIMessages carry "id" and "parts": convert them with convertToModelMessages())',
    tool_calls: 'is OpenAI\'s: an AI SDK call is a { "type": "tool-call" } part in the assistant message\'s "content"',
    tool_call_id: 'is OpenAI\'s: an AI SDK result is a { "type": "tool-result", "toolCallId" } part in a "tool" message\'s "content"',
    providerMetadata: 'is a response field: a message carries provider data in "providerOptions"',
    experimental_providerMetadata: 'is AI SDK 4\'s: AI SDK 5+ calls it "providerOptions"',
  };

  const SystemMessageSchema = strict(
    'a "system" message',
    {
      role: z.literal('system', { error: 'must be "system" (this field takes system messages only)' }),
      content: z.string({
        error: (iss) =>
          iss.input === undefined ? 'is required' : `must be a string (a system message holds text only), not ${describeValue(iss.input)}`,
      }),
      providerOptions,
    },
    MESSAGE_HINTS,
  );

  const UserMessageSchema = strict('a "user" message', { role: z.literal('user'), content: userContent, providerOptions }, MESSAGE_HINTS);

  const AssistantMessageSchema = strict(
    'an "assistant" message',
    { role: z.literal('assistant'), content: assistantContent, providerOptions },
    MESSAGE_HINTS,
  );

  const ToolMessageSchema = strict('a "tool" message', { role: z.literal('tool'), content: toolContent, providerOptions }, MESSAGE_HINTS);

  const MessageSchema = byKind(
    'role',
    'a message',
    { system: SystemMessageSchema, user: UserMessageSchema, assistant: AssistantMessageSchema, tool: ToolMessageSchema },
    {
      developer: 'the "developer" role is OpenAI\'s: use a "system" message (or the top-level "system")',
      model: 'the "model" role is Gemini\'s: the model\'s turns are "assistant" messages',
      function: 'the "function" role is OpenAI\'s (deprecated): a result is a { "type": "tool-result" } part in a "tool" message',
    },
  );

  // ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

  /** A name every provider package takes for a function tool (OpenAI's and Anthropic's rule, Gemini's first character). */
  const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

  /** A tool's input as JSON Schema: an object whose "type" is "object" (looked into no further). */
  const InputSchemaSchema = z.custom<{ type: 'object'; [key: string]: JsonValue | undefined }>().check((ctx) => {
    const value: unknown = ctx.value;
    const rule = (message: string, path: Path = []): void => {
      ctx.issues.push({ code: 'custom', input: value, path, message });
    };
    if (value === undefined) return rule('is required (the JSON Schema of the tool\'s input: { "type": "object", … })');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return rule(`must be a JSON object (the JSON Schema of the tool's input), not ${describeValue(value)}`);
    }
    const type = (value as Record<string, unknown>).type;
    if (type === undefined && Object.hasOwn(value, 'jsonSchema')) {
      return rule(
        'is an AI SDK Schema object as JSON (what jsonSchema() or zodSchema() return): give the plain JSON Schema (its "jsonSchema")',
      );
    }
    if (type === undefined) return rule('is required ("object": a tool\'s input is a JSON object)', ['type']);
    if (type !== 'object') return rule(`must be "object" (a tool's input is a JSON object), not ${kindOf(type)}`, ['type']);
    pushNotJson(value, ctx.issues);
  });

  const FUNCTIONS_ARE_NOT_DATA =
    "is a function, not data: a session declares a tool by its JSON Schema, and forkpool's tools module runs it";

  const ToolSchema = strict(
    'a tool',
    { description: z.string().optional(), inputSchema: InputSchemaSchema, providerOptions, strict: z.boolean().optional() },
    {
      parameters: 'is the AI SDK 4 name: AI SDK 5+ calls a tool\'s JSON Schema "inputSchema"',
      input_schema: 'is Anthropic\'s: the AI SDK calls a tool\'s JSON Schema "inputSchema"',
      name: 'a tool\'s name is its key in "tools"',
      execute: FUNCTIONS_ARE_NOT_DATA,
      toModelOutput: FUNCTIONS_ARE_NOT_DATA,
    },
  );

  const ToolChoiceSchema = byJsonType('"auto", "none", "required" or { "type": "tool", "toolName" }', {
    string: z.enum(['auto', 'none', 'required'], {
      error: (iss) =>
        iss.input === 'any'
          ? '"any" is Anthropic\'s: the AI SDK\'s is "required"'
          : `must be "auto", "none", "required" or { "type": "tool", "toolName" }, not ${kindOf(iss.input)}`,
    }),
    object: byKind(
      'type',
      'a tool choice',
      { tool: strict('a "tool" tool choice', { type: z.literal('tool'), toolName: nonEmpty('a tool name') }) },
      { function: 'is OpenAI\'s: the AI SDK names a tool with { "type": "tool", "toolName" }' },
    ),
  });

  // ── The session ─────────────────────────────────────────────────────────────────────────────────

  const NOT_DATA = "is a function, not data: forkpool runs each fork's steps itself (its own turn limits); leave it out";

  /** Common mistakes get a hint; anything else gets the list of fields a session takes. */
  const AI_SDK_SESSION_HINTS: Record<string, string> = {
    prompt: 'is not an ai-sdk session field: the conversation goes in "messages" (a prompt string is a { "role": "user" } message)',
    maxTokens: 'is the AI SDK 4 name: AI SDK 5+ calls it "maxOutputTokens"',
    apiKey:
      'is not part of a session: the provider descriptor names the environment variable that holds the API key (a session file carries no secrets)',
    headers: 'is not part of a session: request headers belong to the provider descriptor',
    maxRetries: "is not part of a session: retries are forkpool's (it retries each model call itself)",
    abortSignal: 'is not part of a session: forkpool cancels its own calls (and a signal is not data)',
    timeout: 'is not part of a session: forkpool times its own calls',
    stopWhen: NOT_DATA,
    prepareStep: NOT_DATA,
    onStepFinish: NOT_DATA,
    onFinish: NOT_DATA,
    experimental_repairToolCall: NOT_DATA,
    stream: 'is not a session field: forkpool decides how each request is sent; leave "stream" out',
    history: 'is not an ai-sdk session field: the conversation goes in "messages"',
    contents: 'is not an ai-sdk session field: the conversation goes in "messages"',
    max_tokens: 'the AI SDK calls it "maxOutputTokens"',
    tool_choice: 'the AI SDK calls it "toolChoice"',
    stop_sequences: 'the AI SDK calls it "stopSequences"',
    top_p: 'the AI SDK calls it "topP"',
  };

  const numberRule = (iss: { input?: unknown }) =>
    iss.input === undefined ? 'is required' : `must be a number, not ${describeValue(iss.input)}`;
  const settingNumber = z.number({ error: numberRule }).optional();

  const UNANSWERED = (id: string) =>
    `the tool call "${id}" is not answered: a "tool" message right after its assistant message must hold its tool-result (a call may stay unanswered only in the last assistant message, with nothing but tool messages after it)`;

  const SessionObjectSchema = z
    .strictObject(
      {
        format: z.literal('ai-sdk', {
          error: (iss) =>
            iss.input === undefined ? 'is required ("ai-sdk" for a session in the Vercel AI SDK\'s shape)' : 'must be "ai-sdk"',
        }),
        model: z
          .string({
            error: (iss) =>
              iss.input === undefined
                ? "is required (the model's id)"
                : `must be the model's id (a string), not ${describeValue(iss.input)}: the provider descriptor makes the AI SDK model`,
          })
          .min(1, { error: "the model's id must not be empty" }),
        system: byJsonType('a string, a system message or an array of system messages', {
          string: z.string(),
          object: SystemMessageSchema,
          array: z.array(SystemMessageSchema),
        }).optional(),
        messages: z
          .array(MessageSchema, {
            error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of messages ({ "role", "content" })'),
          })
          .min(1, { error: 'must hold at least one message' }),
        tools: z
          .record(z.string(), ToolSchema, {
            error: (iss) =>
              iss.code !== 'invalid_type'
                ? undefined
                : Array.isArray(iss.input)
                  ? 'must be a JSON object keyed by tool name ({ "read_file": { "description", "inputSchema" } }): the AI SDK\'s tools are an object, not an array'
                  : `must be a JSON object keyed by tool name ({ "read_file": { "description", "inputSchema" } }), not ${describeValue(iss.input)}`,
          })
          .optional(),
        toolChoice: ToolChoiceSchema.optional(),
        providerOptions,
        maxOutputTokens: positiveInteger.optional(),
        temperature: settingNumber,
        topP: settingNumber,
        topK: settingNumber,
        presencePenalty: settingNumber,
        frequencyPenalty: settingNumber,
        stopSequences: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
        seed: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }).optional(),
      },
      strictFields('an ai-sdk session', AI_SDK_SESSION_KEYS),
    )
    .check((ctx) => {
      const session = ctx.value;
      const rule = (path: Path, message: string, input: unknown = undefined) => ctx.issues.push({ code: 'custom', input, path, message });

      const declared = Object.keys(session.tools ?? {});
      for (const name of declared) {
        if (!TOOL_NAME.test(name)) {
          rule(
            ['tools', name],
            `${JSON.stringify(name)} is not a tool name every provider takes: at most 64 letters, digits, _ and -, starting with a letter or _`,
            name,
          );
        }
      }
      const choice = session.toolChoice;
      if (typeof choice === 'object' && !declared.includes(choice.toolName)) {
        rule(['toolChoice', 'toolName'], `names the tool "${choice.toolName}", which "tools" does not declare`, choice.toolName);
      }

      // Calls and results, as the AI SDK pairs them (see the header).
      interface Call {
        message: number;
        part: number;
        toolName: string;
        providerExecuted: boolean;
      }
      interface At {
        message: number;
        part: number;
      }
      const messages = session.messages;
      const where = (at: At) => `messages[${at.message}].content[${at.part}]`;
      const calls = new Map<string, Call>();
      const answered = new Map<string, At>();
      const approvals = new Map<string, At>();
      const approvalAnswered = new Map<string, At>();
      // A call answered somewhere else is reported where its result stands, not as unanswered.
      const resultIds = new Set<string>();
      for (const message of messages) {
        if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
        for (const part of message.content) if (part.type === 'tool-result') resultIds.add(part.toolCallId);
      }
      // The calls of the latest assistant message the agent runs, awaiting their results.
      let open = new Map<string, At>();
      const closeTurn = () => {
        for (const [id, at] of open) {
          if (!answered.has(id) && !resultIds.has(id)) rule(['messages', at.message, 'content', at.part, 'toolCallId'], UNANSWERED(id), id);
        }
        open = new Map();
      };
      const checkName = (path: Path, id: string, toolName: string, call: Call) => {
        if (toolName !== call.toolName) {
          rule(
            [...path, 'toolName'],
            `names the tool "${toolName}", but the call "${id}" it answers (${where(call)}) is to "${call.toolName}"`,
            toolName,
          );
        }
      };

      messages.forEach((message, m) => {
        if (message.role === 'system' || message.role === 'user') {
          closeTurn();
          return;
        }
        if (message.role === 'assistant') {
          closeTurn();
          if (!Array.isArray(message.content)) return;
          message.content.forEach((part, p) => {
            const path: Path = ['messages', m, 'content', p];
            if (part.type === 'tool-call') {
              const earlier = calls.get(part.toolCallId);
              if (earlier) {
                rule(
                  [...path, 'toolCallId'],
                  `the toolCallId "${part.toolCallId}" is already used by ${where(earlier)}; toolCallIds must be unique in a session`,
                  part.toolCallId,
                );
              }
              const providerExecuted = part.providerExecuted === true;
              calls.set(part.toolCallId, { message: m, part: p, toolName: part.toolName, providerExecuted });
              if (!providerExecuted) open.set(part.toolCallId, { message: m, part: p });
            } else if (part.type === 'tool-result') {
              const id = part.toolCallId;
              const call = calls.get(id);
              const done = answered.get(id);
              const problem =
                done !== undefined
                  ? `the tool call "${id}" is already answered by ${where(done)}; a tool call is answered once`
                  : call === undefined
                    ? `"${id}" answers no tool call: a tool-result in an assistant message answers a provider-executed tool-call (providerExecuted: true) before it`
                    : !call.providerExecuted
                      ? `answers the call "${id}" of ${where(call)}, which is not provider-executed: its result goes in a "tool" message after that assistant message`
                      : undefined;
              if (problem) rule([...path, 'toolCallId'], problem, id);
              else if (call) checkName(path, id, part.toolName, call);
              answered.set(id, { message: m, part: p });
            } else if (part.type === 'tool-approval-request') {
              const earlier = approvals.get(part.approvalId);
              if (earlier) {
                rule(
                  [...path, 'approvalId'],
                  `the approvalId "${part.approvalId}" is already used by ${where(earlier)}; approvalIds must be unique in a session`,
                  part.approvalId,
                );
              }
              approvals.set(part.approvalId, { message: m, part: p });
              if (!calls.has(part.toolCallId)) {
                rule(
                  [...path, 'toolCallId'],
                  `"${part.toolCallId}" names no tool-call: an approval request comes after the tool-call it asks about`,
                  part.toolCallId,
                );
              }
            }
          });
          return;
        }
        // A tool message.
        const before = messages[m - 1]?.role;
        if (before !== 'assistant' && before !== 'tool') {
          rule(
            ['messages', m, 'role'],
            m === 0
              ? 'a "tool" message cannot come first: it answers the calls of the assistant message before it'
              : `a "tool" message must follow the assistant message whose calls it answers (or another "tool" message), not a "${before}" message`,
            'tool',
          );
          return;
        }
        if (!Array.isArray(message.content)) return;
        message.content.forEach((part, p) => {
          const path: Path = ['messages', m, 'content', p];
          if (part.type === 'tool-approval-response') {
            const id = part.approvalId;
            const done = approvalAnswered.get(id);
            if (done)
              rule([...path, 'approvalId'], `the approval "${id}" is already answered by ${where(done)}; an approval is answered once`, id);
            else if (!approvals.has(id)) {
              rule(
                [...path, 'approvalId'],
                `"${id}" answers no tool-approval-request: an approval response answers a request of an earlier assistant message`,
                id,
              );
            }
            approvalAnswered.set(id, { message: m, part: p });
            return;
          }
          const id = part.toolCallId;
          const call = calls.get(id);
          const done = answered.get(id);
          const problem =
            done !== undefined
              ? `the tool call "${id}" is already answered by ${where(done)}; a tool call is answered once`
              : open.has(id)
                ? undefined
                : call?.providerExecuted
                  ? `answers the provider-executed call "${id}" (providerExecuted: true): its result goes in an assistant message, after the call`
                  : call !== undefined
                    ? `answers the call "${id}" of messages[${call.message}], but a "tool" message must follow the assistant message whose call it answers (only other tool messages may stand between them)`
                    : `"${id}" answers no tool call: a tool-result must answer a tool-call of the assistant message before it`;
          if (problem) rule([...path, 'toolCallId'], problem, id);
          else if (call) checkName(path, id, part.toolName, call);
          answered.set(id, { message: m, part: p });
        });
      });
      // Calls still open here are the last assistant message's, with only tool messages after it: a parent mid-turn.
    });

  const AiSdkSessionSchema = hintsFirst(SessionObjectSchema, AI_SDK_SESSION_HINTS);

  return { AiSdkSessionSchema, MessageSchema, ToolSchema };
}

type Built = ReturnType<typeof build>;
let built: Built | undefined;

/** A session in the AI SDK's shape (built on first use). */
export function aiSdkSessionSchema(): Built['AiSdkSessionSchema'] {
  built ??= build();
  return built.AiSdkSessionSchema;
}

export type AiSdkSession = z.input<Built['AiSdkSessionSchema']>;
export type AiSdkMessage = z.input<Built['MessageSchema']>;
export type AiSdkTool = z.input<Built['ToolSchema']>;

// ── Compile-time checks against the AI SDK's own types ──────────────────────────────────────────
// Type-only (`ai` is an optional peer): these types are not exported, so the emitted .d.ts does not
// name `ai`. `tsc` fails here when the schema and the AI SDK's ModelMessage drift apart.

/** An AI SDK value as JSON carries it: bytes and URL objects are strings, an `unknown` is a JSON value. */
type AsJson<T> = unknown extends T
  ? JsonValue
  : T extends URL | Uint8Array | ArrayBuffer
    ? string
    : T extends readonly (infer E)[]
      ? AsJson<E>[]
      : T extends object
        ? { [K in keyof T]: AsJson<T[K]> }
        : T;

/** Every message a session holds is a ModelMessage `generateText` takes. */
type _SessionMessagesAreModelMessages = Assert<Assignable<AiSdkMessage, ModelMessage>>;
/** Every ModelMessage that JSON can carry is a message a session takes. */
type _JsonModelMessagesAreSessionMessages = Assert<Assignable<AsJson<ModelMessage>, AiSdkMessage>>;

/** The rest of the session is what generateText takes beside its messages. */
type Settings = Omit<AiSdkSession, 'format' | 'model' | 'system' | 'messages' | 'tools' | 'toolChoice' | 'providerOptions'>;
type _SettingsAreCallSettings = Assert<Assignable<Settings, CallSettings>>;
type _SystemIsPromptSystem = Assert<Assignable<AiSdkSession['system'], Prompt['system']>>;
type _ToolChoiceIsToolChoice = Assert<Assignable<AiSdkSession['toolChoice'], ToolChoice<Record<string, unknown>> | undefined>>;
type _ProviderOptionsAreProviderOptions = Assert<Assignable<AiSdkSession['providerOptions'], ModelMessage['providerOptions']>>;

/**
 * And field for field: TypeScript lets a type with fewer optional fields stand for one with more,
 * so each message role, part kind, tool output kind and content item kind names the very fields
 * the AI SDK types name.
 */
type FieldsMatch<Theirs extends { type: string }, Mine> = {
  [K in Theirs['type']]: SameKeys<Extract<Theirs, { type: K }>, Extract<Mine, { type: K }>>;
}[Theirs['type']];
type PartOf<M> = M extends { content: infer C } ? (C extends readonly (infer P)[] ? P : never) : never;
type OutputOf<P> = P extends { type: 'tool-result'; output: infer O } ? O : never;
type ItemOf<O> = O extends { type: 'content'; value: readonly (infer I)[] } ? I : never;

type _MessageFieldsMatch = Assert<
  { [R in ModelMessage['role']]: SameKeys<Extract<ModelMessage, { role: R }>, Extract<AiSdkMessage, { role: R }>> }[ModelMessage['role']]
>;
type _PartFieldsMatch = Assert<FieldsMatch<PartOf<ModelMessage>, PartOf<AiSdkMessage>>>;
type _OutputFieldsMatch = Assert<FieldsMatch<OutputOf<PartOf<ModelMessage>>, OutputOf<PartOf<AiSdkMessage>>>>;
type _ContentItemFieldsMatch = Assert<FieldsMatch<ItemOf<OutputOf<PartOf<ModelMessage>>>, ItemOf<OutputOf<PartOf<AiSdkMessage>>>>>;

/**
 * Validates an already-parsed ai-sdk session object (from a file or from code) and returns that
 * same object: a fork sends the parent's objects in the parent's own key order (byte fidelity), so
 * zod's rebuilt copy is thrown away.
 */
export function parseAiSdkSession(json: unknown, source?: string): AiSdkSession {
  return checkSessionObject<AiSdkSession>(aiSdkSessionSchema(), json, '{ "format": "ai-sdk", "model", "messages", … }', source);
}
