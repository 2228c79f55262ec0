import { z } from 'zod';
import { OPENAI_CHAT_SESSION_KEYS } from './session-keys.js';
import { describeValue } from '../../input/issues.js';
import { checkSessionObject } from '../../input/session-object.js';
import { JsonObjectSchema, byJsonType, choices, nonEmpty, positiveInteger, strictFields, unknownKind } from '../../input/rules.js';

/*
 * A parent session in OpenAI Chat Completions' own shape (`"format": "openai-chat"`): the request
 * body of `client.chat.completions.create` without `stream`, as the `openai` SDK types it
 * (resources/chat/completions/completions.d.ts).
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Messages, content parts, tool calls and tool declarations are strict: a field the API does not
 * take is an error, not something quietly sent. Opaque values (a function's `parameters`, a JSON
 * schema, an `arguments` string) are not looked into.
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 *
 * Decisions:
 * - The deprecated "function" role, and the assistant's deprecated `function_call`, are refused
 *   with a rule that names their replacement ("tool" messages, `tool_calls`).
 * - Custom tools (`{ type: "custom" }`: free-form text input, optionally a grammar), custom tool
 *   calls and a custom `tool_choice` are refused: forkpool executes tools with JSON arguments.
 */

/*
 * The schemas are built on first use, not when the module loads: a process (or a fork's thread)
 * that never checks a session of this shape does not pay for building them.
 */
function build() {
  // ── Content parts ───────────────────────────────────────────────────────────────────────────────

  /** DashScope's explicit cache marker on a text part (kept as the parent sent it). */
  const CacheControlSchema = z.strictObject(
    { type: z.literal('ephemeral', { error: 'must be "ephemeral" (DashScope\'s only cache_control type)' }) },
    strictFields('a cache_control marker', ['type']),
  );

  /**
   * OpenAI's explicit cache breakpoint on an input part (GPT-5.6 and later): "Marks the exact end of
   * a reusable prompt prefix" (the openai SDK's ChatCompletionContentPartText.PromptCacheBreakpoint,
   * from 6.46.0; `explicit` is its only mode).
   */
  const BreakpointSchema = z.strictObject(
    { mode: z.literal('explicit', { error: 'must be "explicit" (the only mode of a prompt_cache_breakpoint)' }) },
    strictFields('a prompt_cache_breakpoint', ['mode']),
  );

  const TextPartSchema = z.strictObject(
    {
      type: z.literal('text'),
      text: z.string(),
      cache_control: CacheControlSchema.optional(),
      prompt_cache_breakpoint: BreakpointSchema.optional(),
    },
    strictFields('a text part', ['type', 'text', 'cache_control', 'prompt_cache_breakpoint']),
  );

  const RefusalPartSchema = z.strictObject(
    { type: z.literal('refusal'), refusal: z.string() },
    strictFields('a refusal part', ['type', 'refusal']),
  );

  const ImagePartSchema = z.strictObject(
    {
      type: z.literal('image_url'),
      image_url: z.strictObject(
        {
          url: nonEmpty('an image url'),
          detail: z.enum(['auto', 'low', 'high']).optional(),
        },
        strictFields('"image_url"', ['url', 'detail']),
      ),
      prompt_cache_breakpoint: BreakpointSchema.optional(),
    },
    strictFields('an image part', ['type', 'image_url', 'prompt_cache_breakpoint']),
  );

  const AudioPartSchema = z.strictObject(
    {
      type: z.literal('input_audio'),
      input_audio: z.strictObject({ data: z.string(), format: z.enum(['wav', 'mp3']) }, strictFields('"input_audio"', ['data', 'format'])),
      prompt_cache_breakpoint: BreakpointSchema.optional(),
    },
    strictFields('an audio part', ['type', 'input_audio', 'prompt_cache_breakpoint']),
  );

  const FilePartSchema = z.strictObject(
    {
      type: z.literal('file'),
      file: z
        .strictObject(
          { file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() },
          strictFields('"file"', ['file_data', 'file_id', 'filename']),
        )
        .refine((f) => f.file_data !== undefined || f.file_id !== undefined, {
          error: 'a file part needs "file_data" or "file_id"',
        }),
      prompt_cache_breakpoint: BreakpointSchema.optional(),
    },
    strictFields('a file part', ['type', 'file', 'prompt_cache_breakpoint']),
  );

  /** A content array: at least one part, each of a type this role takes. */
  function partsOf<const O extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]]>(
    types: readonly string[],
    options: O,
  ) {
    return z
      .array(z.discriminatedUnion('type', options, unknownKind('type', 'a content part', types)))
      .min(1, { error: 'a content array must hold at least one part (or use a string)' });
  }

  const TEXT_ONLY = ['text'];
  const textContent = byJsonType('a string or an array of text parts', {
    string: z.string(),
    array: partsOf(TEXT_ONLY, [TextPartSchema]),
  });

  const USER_PART_TYPES = ['text', 'image_url', 'input_audio', 'file'];
  const userContent = byJsonType('a string or an array of content parts', {
    string: z.string(),
    array: partsOf(USER_PART_TYPES, [TextPartSchema, ImagePartSchema, AudioPartSchema, FilePartSchema]),
  });

  const ASSISTANT_PART_TYPES = ['text', 'refusal'];
  const assistantContent = byJsonType('a string, an array of text and refusal parts, or null', {
    string: z.string(),
    array: partsOf(ASSISTANT_PART_TYPES, [TextPartSchema, RefusalPartSchema]),
  });

  // ── Tool calls and messages ─────────────────────────────────────────────────────────────────────

  const CUSTOM_TOOLS_REFUSED =
    'custom tools (free-form text input) are not supported: forkpool executes tools with JSON arguments, so declare a "function" tool';

  const FunctionToolCallSchema = z.strictObject(
    {
      id: nonEmpty('a tool call id'),
      type: z.literal('function'),
      function: z.strictObject(
        {
          name: nonEmpty('a function name'),
          // Kept byte for byte as the model wrote it: not required to be valid JSON here.
          arguments: z.string(),
        },
        strictFields('a tool call\'s "function"', ['name', 'arguments']),
      ),
    },
    strictFields('a tool call', ['id', 'type', 'function']),
  );

  const ToolCallSchema = z.discriminatedUnion(
    'type',
    [FunctionToolCallSchema],
    unknownKind('type', 'a tool call', ['function'], {
      custom: 'custom tool calls are not supported: forkpool executes tools with JSON arguments, so only "function" calls are accepted',
    }),
  );

  const optionalName = z.string().optional();

  const MESSAGE_HINTS: Record<string, string> = {
    function_call: 'the deprecated "function_call" is not accepted: use "tool_calls" (and "tool" messages for the results)',
    parts: 'is not a Chat Completions message field: use "content" (a string or an array of content parts)',
  };

  const SystemMessageSchema = z.strictObject(
    { role: z.literal('system'), content: textContent, name: optionalName },
    strictFields('a "system" message', ['role', 'content', 'name'], MESSAGE_HINTS),
  );

  const DeveloperMessageSchema = z.strictObject(
    { role: z.literal('developer'), content: textContent, name: optionalName },
    strictFields('a "developer" message', ['role', 'content', 'name'], MESSAGE_HINTS),
  );

  const UserMessageSchema = z.strictObject(
    { role: z.literal('user'), content: userContent, name: optionalName },
    strictFields('a "user" message', ['role', 'content', 'name'], MESSAGE_HINTS),
  );

  const AssistantMessageSchema = z
    .strictObject(
      {
        role: z.literal('assistant'),
        content: assistantContent.nullable().optional(),
        refusal: z.string().nullable().optional(),
        name: optionalName,
        audio: z
          .strictObject({ id: nonEmpty('an audio id') }, strictFields('"audio"', ['id']))
          .nullable()
          .optional(),
        tool_calls: z
          .array(ToolCallSchema, { error: 'must be an array of tool calls ({ "id", "type": "function", "function" })' })
          .min(1, { error: 'must hold at least one tool call (leave "tool_calls" out when there are none)' })
          .optional(),
      },
      strictFields('an "assistant" message', ['role', 'content', 'refusal', 'name', 'audio', 'tool_calls'], MESSAGE_HINTS),
    )
    .check((ctx) => {
      const m = ctx.value;
      // The API takes an assistant message without content only when it carries calls; a refusal or
      // an earlier audio response is what such a turn holds when the model answered that way.
      const holds = [m.content, m.tool_calls, m.refusal, m.audio].some((v) => v !== undefined && v !== null);
      if (!holds) {
        ctx.issues.push({
          code: 'custom',
          input: m,
          message: 'an assistant message needs "content" or "tool_calls" (or a "refusal", or "audio")',
        });
      }
    });

  const ToolMessageSchema = z.strictObject(
    { role: z.literal('tool'), content: textContent, tool_call_id: nonEmpty('a tool call id') },
    strictFields('a "tool" message', ['role', 'content', 'tool_call_id'], MESSAGE_HINTS),
  );

  const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

  const MessageSchema = z.discriminatedUnion(
    'role',
    [SystemMessageSchema, DeveloperMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolMessageSchema],
    unknownKind('role', 'a message', MESSAGE_ROLES, {
      function:
        'the deprecated "function" role is not accepted: send a function\'s result as a "tool" message answering an assistant\'s "tool_calls" entry',
    }),
  );

  // ── Tools, tool choice, response format ─────────────────────────────────────────────────────────

  const FunctionToolSchema = z.strictObject(
    {
      type: z.literal('function'),
      function: z.strictObject(
        {
          name: nonEmpty('a function name'),
          description: z.string().optional(),
          parameters: JsonObjectSchema.optional(),
          strict: z.boolean().nullable().optional(),
        },
        strictFields('a function declaration', ['name', 'description', 'parameters', 'strict']),
      ),
    },
    strictFields('a tool', ['type', 'function']),
  );

  const ToolSchema = z.discriminatedUnion(
    'type',
    [FunctionToolSchema],
    unknownKind('type', 'a tool', ['function'], { custom: CUSTOM_TOOLS_REFUSED }),
  );

  const NamedToolChoiceSchema = z.strictObject(
    {
      type: z.literal('function'),
      function: z.strictObject({ name: nonEmpty('a function name') }, strictFields('"function"', ['name'])),
    },
    strictFields('a named tool choice', ['type', 'function']),
  );

  const AllowedToolsChoiceSchema = z.strictObject(
    {
      type: z.literal('allowed_tools'),
      allowed_tools: z.strictObject(
        {
          mode: z.enum(['auto', 'required']),
          tools: z.array(JsonObjectSchema, { error: 'must be an array of tool definitions' }),
        },
        strictFields('"allowed_tools"', ['mode', 'tools']),
      ),
    },
    strictFields('an allowed-tools choice', ['type', 'allowed_tools']),
  );

  const ToolChoiceSchema = byJsonType('"none", "auto", "required" or a tool choice object', {
    string: z.enum(['none', 'auto', 'required'], {
      error: 'must be "none", "auto", "required" or a tool choice object ({ "type": "function", "function": { "name" } })',
    }),
    object: z.discriminatedUnion(
      'type',
      [NamedToolChoiceSchema, AllowedToolsChoiceSchema],
      unknownKind('type', 'a tool choice', ['function', 'allowed_tools'], { custom: CUSTOM_TOOLS_REFUSED }),
    ),
  });

  const ResponseFormatSchema = z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('text') }, strictFields('a "text" response format', ['type'])),
      z.strictObject({ type: z.literal('json_object') }, strictFields('a "json_object" response format', ['type'])),
      z.strictObject(
        {
          type: z.literal('json_schema'),
          json_schema: z.strictObject(
            {
              name: nonEmpty('a schema name'),
              description: z.string().optional(),
              schema: JsonObjectSchema.optional(),
              strict: z.boolean().nullable().optional(),
            },
            strictFields('"json_schema"', ['name', 'description', 'schema', 'strict']),
          ),
        },
        strictFields('a "json_schema" response format', ['type', 'json_schema']),
      ),
    ],
    unknownKind('type', 'a response format', ['text', 'json_object', 'json_schema']),
  );

  // ── The session ─────────────────────────────────────────────────────────────────────────────────

  /** OpenAI's reasoning efforts (`Shared.ReasoningEffort` in the openai SDK), null aside. */
  const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

  const finiteNumber = z.number({
    error: (iss) => (iss.input === undefined ? 'is required' : `must be a finite number, not ${describeValue(iss.input)}`),
  });

  const CACHE_MODES = ['implicit', 'explicit'] as const;
  const RETENTIONS = ['in_memory', '24h'] as const;

  /**
   * GPT-5.6 and later: `{ mode, ttl }` (the SDK's PromptCacheOptions: mode "implicit" by default;
   * "The `ttl` defaults to `30m`, which is currently the only supported value").
   */
  const PromptCacheOptionsSchema = z.strictObject(
    {
      mode: z.enum(CACHE_MODES, { error: `must be ${choices(CACHE_MODES)}` }).optional(),
      ttl: z.literal('30m', { error: 'must be "30m" (the only prompt cache ttl OpenAI takes today)' }).optional(),
    },
    strictFields('"prompt_cache_options"', ['mode', 'ttl']),
  );

  /** Common mistakes get a hint; anything else gets the list of fields a session takes. */
  const OPENAI_CHAT_SESSION_HINTS: Record<string, string> = {
    history: 'is not an openai-chat session field: the conversation goes in "messages"',
    contents: 'is not an openai-chat session field: the conversation goes in "messages"',
    systemInstruction: 'is not an openai-chat session field: a system prompt is a { "role": "system" } (or "developer") message',
    system: 'is not an openai-chat session field: a system prompt is a { "role": "system" } (or "developer") message',
    generationConfig: 'is not an openai-chat session field: sampling settings are top-level fields ("temperature", "top_p", …)',
    stream: 'is not a session field: forkpool decides how each request is sent; leave "stream" out',
    stream_options: 'is not a session field: forkpool decides how each request is sent; leave "stream_options" out',
    n: 'is not a session field: each fork asks for one completion',
    functions: 'the deprecated "functions" is not accepted: declare them in "tools" ({ "type": "function", "function": … })',
    function_call: 'the deprecated "function_call" is not accepted: use "tool_choice"',
  };

  const OpenAIChatSessionSchema = z
    .strictObject(
      {
        format: z.literal('openai-chat', {
          error: (iss) =>
            iss.input === undefined ? 'is required ("openai-chat" for a session in Chat Completions\' shape)' : 'must be "openai-chat"',
        }),
        model: nonEmpty('the model name'),
        messages: z
          .array(MessageSchema, { error: 'must be an array of messages ({ "role", "content" })' })
          .min(1, { error: 'must hold at least one message' }),
        tools: z.array(ToolSchema, { error: 'must be an array of tools ({ "type": "function", "function" })' }).optional(),
        tool_choice: ToolChoiceSchema.optional(),
        parallel_tool_calls: z.boolean().optional(),
        temperature: finiteNumber.nullable().optional(),
        top_p: finiteNumber.nullable().optional(),
        max_tokens: positiveInteger.nullable().optional(),
        max_completion_tokens: positiveInteger.nullable().optional(),
        reasoning_effort: z
          .enum(REASONING_EFFORTS, { error: `must be ${choices(REASONING_EFFORTS)} (or null)` })
          .nullable()
          .optional(),
        response_format: ResponseFormatSchema.optional(),
        seed: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }).nullable().optional(),
        stop: byJsonType('a string or an array of strings', {
          string: z.string(),
          array: z.array(z.string()),
        })
          .nullable()
          .optional(),
        prompt_cache_options: PromptCacheOptionsSchema.optional(),
        prompt_cache_retention: z
          .enum(RETENTIONS, { error: `must be ${choices(RETENTIONS)} (or null)` })
          .nullable()
          .optional(),
      },
      strictFields('an openai-chat session', OPENAI_CHAT_SESSION_KEYS, OPENAI_CHAT_SESSION_HINTS),
    )
    .check((ctx) => {
      const session = ctx.value;

      // The SDK marks prompt_cache_retention deprecated beside prompt_cache_options (GPT-5.6 and later), and
      // at least one client documents the pair as rejected: forkpool sends neither twice nor both.
      if (
        session.prompt_cache_options !== undefined &&
        session.prompt_cache_retention !== undefined &&
        session.prompt_cache_retention !== null
      ) {
        ctx.issues.push({
          code: 'custom',
          input: session.prompt_cache_retention,
          path: ['prompt_cache_retention'],
          message: 'is the older models\' cache setting: beside "prompt_cache_options" (GPT-5.6 and later) send one of the two, not both',
        });
      }

      // The API rejects a request that declares one function twice; say so before any fork runs.
      const declared = new Set<string>();
      session.tools?.forEach((tool, t) => {
        const name = tool.function.name;
        if (declared.has(name)) {
          ctx.issues.push({
            code: 'custom',
            input: name,
            path: ['tools', t, 'function', 'name'],
            message: `the function "${name}" is declared twice`,
          });
        }
        declared.add(name);
      });

      const choice = session.tool_choice;
      if (typeof choice === 'object' && choice.type === 'function' && !declared.has(choice.function.name)) {
        ctx.issues.push({
          code: 'custom',
          input: choice.function.name,
          path: ['tool_choice', 'function', 'name'],
          message: `names the function "${choice.function.name}", which "tools" does not declare`,
        });
      }

      // Tool call ids are unique in a session, and each tool message answers a call of the assistant
      // message before it (only other tool messages may stand between them), once.
      const callAt = new Map<string, { message: number; call: number }>();
      const answeredAt = new Map<string, number>();
      let openCalls = new Set<string>();
      session.messages.forEach((message, m) => {
        if (message.role === 'assistant') {
          openCalls = new Set();
          message.tool_calls?.forEach((call, c) => {
            const earlier = callAt.get(call.id);
            if (earlier) {
              ctx.issues.push({
                code: 'custom',
                input: call.id,
                path: ['messages', m, 'tool_calls', c, 'id'],
                message: `the tool call id "${call.id}" is already used by messages[${earlier.message}].tool_calls[${earlier.call}]; tool call ids must be unique in a session`,
              });
            }
            callAt.set(call.id, { message: m, call: c });
            openCalls.add(call.id);
          });
          return;
        }
        if (message.role !== 'tool') {
          openCalls = new Set();
          return;
        }
        const id = message.tool_call_id;
        const path = ['messages', m, 'tool_call_id'];
        const answered = answeredAt.get(id);
        const call = callAt.get(id);
        const rule =
          answered !== undefined
            ? `the tool call "${id}" is already answered by messages[${answered}]; a tool call is answered once`
            : openCalls.has(id)
              ? undefined
              : call !== undefined
                ? `answers the call "${id}" of messages[${call.message}], but a tool message must follow the assistant message whose call it answers (only other tool messages may stand between them)`
                : `"${id}" answers no tool call: a tool message must answer a call in the "tool_calls" of the assistant message before it`;
        if (rule) ctx.issues.push({ code: 'custom', input: id, path, message: rule });
        answeredAt.set(id, m);
      });
    });

  const fieldsOf = (schema: { shape: object }): readonly string[] => Object.keys(schema.shape);

  /**
   * The fields each message (by role) and content part (by type) takes, read off the schemas above:
   * what the importer keeps of a logged request's messages (import.ts), so the two never differ.
   */
  const CHAT_FIELDS = {
    messages: {
      system: fieldsOf(SystemMessageSchema),
      developer: fieldsOf(DeveloperMessageSchema),
      user: fieldsOf(UserMessageSchema),
      assistant: fieldsOf(AssistantMessageSchema),
      tool: fieldsOf(ToolMessageSchema),
    },
    parts: {
      text: fieldsOf(TextPartSchema),
      refusal: fieldsOf(RefusalPartSchema),
      image_url: fieldsOf(ImagePartSchema),
      input_audio: fieldsOf(AudioPartSchema),
      file: fieldsOf(FilePartSchema),
    },
    partObjects: {
      image_url: fieldsOf(ImagePartSchema.shape.image_url),
      input_audio: fieldsOf(AudioPartSchema.shape.input_audio),
      file: fieldsOf(FilePartSchema.shape.file),
    },
    toolCall: fieldsOf(FunctionToolCallSchema),
    calledFunction: fieldsOf(FunctionToolCallSchema.shape.function),
  };

  return {
    AssistantMessageSchema,
    AudioPartSchema,
    CHAT_FIELDS,
    FilePartSchema,
    ImagePartSchema,
    MessageSchema,
    OpenAIChatSessionSchema,
    RefusalPartSchema,
    TextPartSchema,
    ToolCallSchema,
    ToolMessageSchema,
    ToolSchema,
  };
}

type Built = ReturnType<typeof build>;
let built: Built | undefined;

/** A session in OpenAI Chat Completions' shape (built on first use). */
export function openAIChatSessionSchema(): Built['OpenAIChatSessionSchema'] {
  built ??= build();
  return built.OpenAIChatSessionSchema;
}

/**
 * The fields each message (by role) and content part (by type) takes, read off the schemas: what
 * the importer keeps of a logged request's messages (import.ts), so the two never differ.
 */
export function chatFields(): Built['CHAT_FIELDS'] {
  built ??= build();
  return built.CHAT_FIELDS;
}

export type OpenAIChatSession = z.input<Built['OpenAIChatSessionSchema']>;
export type ChatMessage = z.input<Built['MessageSchema']>;
export type ChatAssistantMessage = z.input<Built['AssistantMessageSchema']>;
export type ChatToolMessage = z.input<Built['ToolMessageSchema']>;
export type ChatToolCall = z.input<Built['ToolCallSchema']>;
export type ChatTool = z.input<Built['ToolSchema']>;
export type ChatContentPart =
  | z.input<Built['TextPartSchema']>
  | z.input<Built['RefusalPartSchema']>
  | z.input<Built['ImagePartSchema']>
  | z.input<Built['AudioPartSchema']>
  | z.input<Built['FilePartSchema']>;

/**
 * Validates an already-parsed openai-chat session object (from a file or from code) and returns
 * that same object: a fork sends the parent's objects in the parent's own key order (byte
 * fidelity), so zod's rebuilt copy is thrown away.
 */
export function parseOpenAIChatSession(json: unknown, source?: string): OpenAIChatSession {
  return checkSessionObject<OpenAIChatSession>(
    openAIChatSessionSchema(),
    json,
    '{ "format": "openai-chat", "model", "messages", … }',
    source,
  );
}
