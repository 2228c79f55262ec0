import type { DocumentBlockParam, ImageBlockParam, TextCitationParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { formatPath } from '../../input/errors.js';
import { describeValue } from '../../input/issues.js';
import { checkSessionObject } from '../../input/session-object.js';
import {
  JsonObjectSchema,
  byJsonType,
  byKind,
  choices,
  kindOf,
  nonEmpty,
  pushIssuesOf,
  strictFields,
  unknownKind,
  type KindInput,
} from '../../input/rules.js';

/*
 * A parent session in Anthropic's Messages API shape (`"format": "anthropic-messages"`): the
 * request body of `client.messages.create` without `stream`, as `@anthropic-ai/sdk` 1.x types it
 * (resources/messages/messages.d.ts: MessageCreateParams), which sends API version 2026-10-21.
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Messages, content blocks, tools and settings are strict: a field the API does not take is an
 * error, not something quietly sent. Opaque values (a tool's `input`, an `input_schema` beyond its
 * `"type": "object"`, a thinking block's `signature`) are not looked into; `thinking` and
 * `redacted_thinking` blocks are checked to hold strings and are never altered. `image` and
 * `document` blocks are checked in outline (their `type`, their `source.type`, their
 * `cache_control`) and the rest passes through as the API types it.
 * `cache_control` markers are kept where the parent put them (a fork sends the parent's bytes).
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 *
 * Decisions:
 * - "temperature", "top_p" and "top_k" are refused with their own rule: API version 2026-10-21
 *   (what the SDK 1.x sends) answers them with a 400 error, even at their defaults, and the SDK's
 *   types no longer have them. Accepting them would fail every fork.
 * - Server tools (web search, web fetch, code execution, tool search…) and Anthropic-defined client
 *   tools (bash, text editor, memory, the computer and browser toolsets) are refused, as are the
 *   blocks they leave in a conversation (`server_tool_use`, `web_search_tool_result`…), tool_use
 *   blocks a server tool called, and the tool fields that only work with them (`defer_loading`,
 *   `allowed_callers`): forkpool runs the session's own tools, declared with an `input_schema`.
 * - `{ "role": "system" }` messages are accepted where the API takes them (mid-conversation: right
 *   after a user message, and last or followed by an assistant message); as the first message, the
 *   usual mistake carried over from Chat Completions, they get a rule pointing at `system`.
 * - Consecutive user (or assistant) messages are accepted: the API merges them into one turn, and
 *   the tool rules below read them as that one turn. The first message may be an assistant
 *   message (Anthropic's API takes that; Amazon Bedrock does not).
 * - `max_tokens` must be positive: the API takes 0 (it only pre-warms the cache), which would
 *   leave every fork without room to answer.
 */

/** Every field an anthropic-messages session takes (the importers keep these of a request body). */
export const ANTHROPIC_SESSION_KEYS: readonly string[] = [
  'format',
  'model',
  'system',
  'tools',
  'tool_choice',
  'messages',
  'max_tokens',
  'thinking',
  'stop_sequences',
];

/*
 * The schemas are built on first use, not when the module loads: a process (or a fork's thread)
 * that never checks a session of this shape does not pay for building them.
 */
function build() {
  /** A value checked by `schema` (in outline) and typed `T`: what the schema does not look at passes through as the API types it. */
  function outline<T>(schema: z.ZodType): z.ZodCustom<T, T> {
    return z.custom<T>().check((ctx) => pushIssuesOf(schema, ctx.value, ctx.issues));
  }

  /** A content block, validated by the schema of its `type` (rules.ts, byKind). */
  function blockOf<K extends Record<string, z.ZodType>>(
    what: string,
    kinds: K,
    refused: Record<string, string> = {},
  ): z.ZodCustom<KindInput<K>, KindInput<K>> {
    return byKind('type', what, kinds, refused);
  }

  // ── Cache breakpoints and text ──────────────────────────────────────────────────────────────────

  /** A prompt-cache breakpoint (`CacheControlEphemeral`): kept as the parent sent it. */
  const CacheControlSchema = z
    .strictObject(
      {
        type: z.literal('ephemeral', { error: 'must be "ephemeral" (the only cache_control type)' }),
        ttl: z.enum(['5m', '1h'], { error: 'must be "5m" or "1h"' }).optional(),
      },
      strictFields('a cache_control marker', ['type', 'ttl']),
    )
    .nullable()
    .optional();

  const textOf = z.string().min(1, { error: "a text block must not be empty (Anthropic's API refuses empty text blocks)" });

  const CITATION_TYPES = [
    'char_location',
    'page_location',
    'content_block_location',
    'search_result_location',
    'web_search_result_location',
  ];

  /** A citation the model gave (checked in outline: a response's citations carry fields a request's do not name). */
  const CitationSchema = outline<TextCitationParam>(
    z.looseObject(
      {
        type: z.enum(CITATION_TYPES, {
          error: (iss) =>
            iss.input === undefined
              ? `is required (allowed: ${choices(CITATION_TYPES)})`
              : `must be ${choices(CITATION_TYPES)}, not ${kindOf(iss.input)}`,
        }),
      },
      { error: (iss) => (iss.code === 'invalid_type' ? `a citation must be a JSON object, not ${describeValue(iss.input)}` : undefined) },
    ),
  );

  const TEXT_FIELDS = ['type', 'text', 'cache_control', 'citations'];

  /** A text block as the model wrote it, with the citations it gave. */
  const TextBlockSchema = z.strictObject(
    {
      type: z.literal('text'),
      text: textOf,
      cache_control: CacheControlSchema,
      citations: z.array(CitationSchema, { error: 'must be an array of citations (or null)' }).nullable().optional(),
    },
    strictFields('a text block', TEXT_FIELDS),
  );

  const USER_CITATIONS_REFUSED =
    "citations on a user message's text block are refused by Anthropic's API (since version 2026-10-21): only the model's text carries them";

  /** A user's text block: since API version 2026-10-21 it may not carry citations. */
  const UserTextBlockSchema = z.strictObject(
    {
      type: z.literal('text'),
      text: textOf,
      cache_control: CacheControlSchema,
      citations: z
        .tuple([], { error: (iss) => (iss.code === 'too_big' ? USER_CITATIONS_REFUSED : 'must be an empty array or null') })
        .nullable()
        .optional(),
    },
    strictFields('a text block', TEXT_FIELDS),
  );

  // ── Media, search results, thinking ─────────────────────────────────────────────────────────────

  /** `{ "type": one of kinds, … }`: a media source, checked by its type only. */
  function sourceOutline(what: string, kinds: readonly string[]) {
    return z.looseObject(
      {
        type: z.enum(kinds as [string, ...string[]], {
          error: (iss) =>
            iss.input === undefined ? `is required (allowed: ${choices(kinds)})` : `must be ${choices(kinds)}, not ${kindOf(iss.input)}`,
        }),
      },
      {
        error: (iss) =>
          iss.code !== 'invalid_type'
            ? undefined
            : iss.input === undefined
              ? 'is required'
              : `${what} must be a JSON object, not ${describeValue(iss.input)}`,
      },
    );
  }

  const ImageBlockSchema = outline<ImageBlockParam>(
    z.looseObject({
      type: z.literal('image'),
      source: sourceOutline('an image source', ['base64', 'url', 'file']),
      cache_control: CacheControlSchema,
    }),
  );

  const DocumentBlockSchema = outline<DocumentBlockParam>(
    z.looseObject({
      type: z.literal('document'),
      source: sourceOutline('a document source', ['base64', 'text', 'content', 'url', 'file']),
      cache_control: CacheControlSchema,
    }),
  );

  const SearchResultBlockSchema = z.strictObject(
    {
      type: z.literal('search_result'),
      source: z.string(),
      title: z.string(),
      content: z.array(blockOf('a search result content block', { text: TextBlockSchema }), { error: 'must be an array of text blocks' }),
      cache_control: CacheControlSchema,
      citations: z.strictObject({ enabled: z.boolean().optional() }, strictFields('"citations"', ['enabled'])).optional(),
    },
    strictFields('a search_result block', ['type', 'source', 'title', 'content', 'cache_control', 'citations']),
  );

  const NO_CACHE_ON_THINKING = "a thinking block cannot carry cache_control (Anthropic's API refuses it): mark another block";

  const ThinkingBlockSchema = z.strictObject(
    { type: z.literal('thinking'), thinking: z.string(), signature: z.string() },
    strictFields('a thinking block', ['type', 'thinking', 'signature'], { cache_control: NO_CACHE_ON_THINKING }),
  );

  const RedactedThinkingBlockSchema = z.strictObject(
    { type: z.literal('redacted_thinking'), data: z.string() },
    strictFields('a redacted_thinking block', ['type', 'data'], { cache_control: NO_CACHE_ON_THINKING }),
  );

  // ── Tool use and tool results ───────────────────────────────────────────────────────────────────

  const PROGRAMMATIC_CALLS_REFUSED =
    'a tool_use called by the code execution tool (programmatic tool calling) is not supported: forkpool runs no server tools';

  const TOOLSETS_REFUSED =
    'toolset members (the computer and browser toolsets) are not supported: forkpool runs the session\'s own tools (leave "toolset_name" out or null)';

  const CallerSchema = z.discriminatedUnion(
    'type',
    [z.strictObject({ type: z.literal('direct') }, strictFields('a caller', ['type']))],
    unknownKind('type', 'a caller', ['direct'], {
      code_execution_20250825: PROGRAMMATIC_CALLS_REFUSED,
      code_execution_20260120: PROGRAMMATIC_CALLS_REFUSED,
    }),
  );

  const ToolUseBlockSchema = z.strictObject(
    {
      type: z.literal('tool_use'),
      id: nonEmpty('a tool_use id'),
      name: nonEmpty('a tool name'),
      // Kept as the model wrote it; the API takes an object.
      input: JsonObjectSchema,
      cache_control: CacheControlSchema,
      caller: CallerSchema.optional(),
      toolset_name: z.null({ error: TOOLSETS_REFUSED }).optional(),
    },
    strictFields('a tool_use block', ['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name']),
  );

  const TOOL_RESULT_KINDS = {
    text: TextBlockSchema,
    image: ImageBlockSchema,
    document: DocumentBlockSchema,
    search_result: SearchResultBlockSchema,
  };

  const ToolResultBlockSchema = z.strictObject(
    {
      type: z.literal('tool_result'),
      tool_use_id: nonEmpty('a tool_use id'),
      content: byJsonType('a string or an array of text, image, document or search_result blocks', {
        string: z.string(),
        array: z.array(
          blockOf('a tool_result content block', TOOL_RESULT_KINDS, {
            tool_reference: 'tool_reference blocks come from tool search, a server tool forkpool does not run',
            browser_state: 'browser_state blocks answer the browser toolset, which forkpool does not run',
          }),
        ),
      }).optional(),
      is_error: z.boolean().optional(),
      cache_control: CacheControlSchema,
      toolset_name: z.null({ error: TOOLSETS_REFUSED }).optional(),
    },
    strictFields('a tool_result block', ['type', 'tool_use_id', 'content', 'is_error', 'cache_control', 'toolset_name']),
  );

  // ── Messages ────────────────────────────────────────────────────────────────────────────────────

  /** Blocks server tools leave in a conversation. */
  const SERVER_BLOCKS = [
    'server_tool_use',
    'web_search_tool_result',
    'web_fetch_tool_result',
    'code_execution_tool_result',
    'bash_code_execution_tool_result',
    'text_editor_code_execution_tool_result',
    'tool_search_tool_result',
    'container_upload',
  ];

  const SERVER_BLOCKS_REFUSED = Object.fromEntries(
    SERVER_BLOCKS.map((kind) => [
      kind,
      `"${kind}" blocks come from server tools, which forkpool does not run (it runs the session's own tools)`,
    ]),
  );

  const THINKING_IN_USER = "thinking blocks are the model's: they go in assistant messages";

  const userContent = byJsonType('a string or an array of content blocks', {
    string: z.string(),
    array: z.array(
      blockOf(
        'a content block',
        {
          text: UserTextBlockSchema,
          image: ImageBlockSchema,
          document: DocumentBlockSchema,
          search_result: SearchResultBlockSchema,
          tool_result: ToolResultBlockSchema,
        },
        {
          ...SERVER_BLOCKS_REFUSED,
          tool_use:
            'a tool_use block is the model\'s call: it goes in an assistant message (a user message answers it with a "tool_result")',
          thinking: THINKING_IN_USER,
          redacted_thinking: THINKING_IN_USER,
        },
      ),
    ),
  });

  const assistantContent = byJsonType('a string or an array of content blocks', {
    string: z.string(),
    array: z.array(
      blockOf(
        'a content block',
        {
          text: TextBlockSchema,
          image: ImageBlockSchema,
          search_result: SearchResultBlockSchema,
          thinking: ThinkingBlockSchema,
          redacted_thinking: RedactedThinkingBlockSchema,
          tool_use: ToolUseBlockSchema,
        },
        {
          ...SERVER_BLOCKS_REFUSED,
          tool_result: 'a tool_result block goes in a user message (it answers a tool_use of the assistant message before it)',
          document:
            "a document block is refused in an assistant message by Anthropic's API (since version 2026-10-21): put it in a user message",
        },
      ),
    ),
  });

  const systemContent = byJsonType('a string or an array of text blocks', {
    string: z.string(),
    array: z.array(blockOf('a content block', { text: TextBlockSchema })),
  });

  const MESSAGE_HINTS: Record<string, string> = {
    tool_calls: 'is OpenAI\'s: a call is a { "type": "tool_use" } block in the assistant message\'s "content"',
    tool_call_id: 'is OpenAI\'s: a result is a { "type": "tool_result", "tool_use_id" } block in a user message\'s "content"',
    parts: 'is Gemini\'s: use "content" (a string or an array of content blocks)',
  };

  const UserMessageSchema = z.strictObject(
    { role: z.literal('user'), content: userContent },
    strictFields('a "user" message', ['role', 'content'], MESSAGE_HINTS),
  );

  const AssistantMessageSchema = z.strictObject(
    { role: z.literal('assistant'), content: assistantContent },
    strictFields('an "assistant" message', ['role', 'content'], MESSAGE_HINTS),
  );

  /** A mid-conversation system message (where it may stand is a rule of the session). */
  const SystemMessageSchema = z.strictObject(
    { role: z.literal('system'), content: systemContent },
    strictFields('a "system" message', ['role', 'content'], MESSAGE_HINTS),
  );

  const MessageSchema = z.discriminatedUnion(
    'role',
    [UserMessageSchema, AssistantMessageSchema, SystemMessageSchema],
    unknownKind('role', 'a message', ['user', 'assistant', 'system'], {
      tool: 'the "tool" role is OpenAI\'s: a tool\'s result is a { "type": "tool_result" } block in a "user" message',
      developer: 'the "developer" role is OpenAI\'s: the system prompt goes in the top-level "system" field',
      model: 'the "model" role is Gemini\'s: the model\'s turns are "assistant" messages',
    }),
  );

  // ── Tools, tool choice, thinking ────────────────────────────────────────────────────────────────

  const InputSchemaSchema = z.looseObject(
    {
      type: z.literal('object', {
        error: (iss) =>
          iss.input === undefined
            ? 'is required ("object": a tool\'s input is a JSON object)'
            : 'must be "object" (a tool\'s input is a JSON object)',
      }),
    },
    {
      error: (iss) =>
        iss.code !== 'invalid_type'
          ? undefined
          : iss.input === undefined
            ? 'is required'
            : "must be a JSON object (the JSON Schema of the tool's input)",
    },
  );

  function toolTypeRule(type: unknown): string {
    if (type === 'function')
      return 'is OpenAI\'s tool shape: an Anthropic tool is { "name", "description", "input_schema" } (its "type" is "custom" or left out)';
    if (typeof type !== 'string') return `must be "custom" (or left out), not ${describeValue(type)}`;
    return `${JSON.stringify(type)} is an Anthropic-defined or server tool, which forkpool does not run: declare a custom tool ({ "name", "description", "input_schema" }; its "type" is "custom" or left out)`;
  }

  const TOOL_FIELDS = ['type', 'name', 'description', 'input_schema', 'cache_control', 'strict', 'eager_input_streaming', 'input_examples'];

  const ToolSchema = z.strictObject(
    {
      // First: a server tool is told so before its missing input_schema is.
      type: z
        .literal('custom', { error: (iss) => toolTypeRule(iss.input) })
        .nullable()
        .optional(),
      name: nonEmpty('a tool name'),
      description: z.string().optional(),
      input_schema: InputSchemaSchema,
      cache_control: CacheControlSchema,
      strict: z.boolean().optional(),
      eager_input_streaming: z.boolean().nullable().optional(),
      input_examples: z.array(JsonObjectSchema, { error: 'must be an array of example inputs (JSON objects)' }).optional(),
    },
    strictFields('a tool', TOOL_FIELDS, {
      function: 'is OpenAI\'s tool shape: an Anthropic tool is { "name", "description", "input_schema" }',
      parameters: 'is OpenAI\'s: the JSON Schema of a tool\'s input goes in "input_schema"',
      defer_loading: '"defer_loading" works with tool search, a server tool forkpool does not run: leave it out',
      allowed_callers:
        '"allowed_callers" works with the code execution tool (programmatic tool calling), a server tool forkpool does not run: leave it out',
    }),
  );

  const disableParallel = z.boolean().optional();

  const ToolChoiceSchema = byJsonType('a tool choice object ({ "type": "auto", "any", "tool" or "none" })', {
    object: z.discriminatedUnion(
      'type',
      [
        z.strictObject(
          { type: z.literal('auto'), disable_parallel_tool_use: disableParallel },
          strictFields('an "auto" tool choice', ['type', 'disable_parallel_tool_use']),
        ),
        z.strictObject(
          { type: z.literal('any'), disable_parallel_tool_use: disableParallel },
          strictFields('an "any" tool choice', ['type', 'disable_parallel_tool_use']),
        ),
        z.strictObject(
          { type: z.literal('tool'), name: nonEmpty('a tool name'), disable_parallel_tool_use: disableParallel },
          strictFields('a "tool" tool choice', ['type', 'name', 'disable_parallel_tool_use']),
        ),
        z.strictObject({ type: z.literal('none') }, strictFields('a "none" tool choice', ['type'])),
      ],
      unknownKind('type', 'a tool choice', ['auto', 'any', 'tool', 'none'], {
        required: '"required" is OpenAI\'s: Anthropic\'s is "any"',
        function: 'is OpenAI\'s: name a tool with { "type": "tool", "name" }',
      }),
    ),
  });

  const budgetRule = 'must be an integer of at least 1024';
  const display = z.enum(['summarized', 'omitted'], { error: 'must be "summarized" or "omitted" (or null)' }).nullable().optional();

  const ThinkingSchema = z.discriminatedUnion(
    'type',
    [
      z.strictObject(
        {
          type: z.literal('enabled'),
          budget_tokens: z
            .number({ error: (iss) => (iss.input === undefined ? 'is required' : budgetRule) })
            .int({ error: budgetRule })
            .min(1024, { error: budgetRule }),
          display,
        },
        strictFields('an "enabled" thinking config', ['type', 'budget_tokens', 'display']),
      ),
      z.strictObject({ type: z.literal('adaptive'), display }, strictFields('an "adaptive" thinking config', ['type', 'display'])),
      z.strictObject({ type: z.literal('between_tools') }, strictFields('a "between_tools" thinking config', ['type'])),
      z.strictObject({ type: z.literal('disabled') }, strictFields('a "disabled" thinking config', ['type'])),
    ],
    unknownKind('type', '"thinking"', ['enabled', 'adaptive', 'between_tools', 'disabled']),
  );

  // ── The session ─────────────────────────────────────────────────────────────────────────────────

  const positiveRule = 'must be a positive integer';

  const SAMPLING_REFUSED =
    'is refused by Anthropic\'s API version 2026-10-21 (the one @anthropic-ai/sdk 1.x sends): "temperature", "top_p" and "top_k" get a 400 error, even at their defaults; leave it out';

  /** Common mistakes get a hint; anything else gets the list of fields a session takes. */
  const ANTHROPIC_SESSION_HINTS: Record<string, string> = {
    stream: 'is not a session field: forkpool decides how each request is sent; leave "stream" out',
    history: 'is not an anthropic-messages session field: the conversation goes in "messages"',
    contents: 'is not an anthropic-messages session field: the conversation goes in "messages"',
    systemInstruction: 'is not an anthropic-messages session field: the system prompt goes in "system"',
    generationConfig:
      'is not an anthropic-messages session field: settings are top-level fields ("max_tokens", "thinking", "stop_sequences")',
    max_completion_tokens: 'is OpenAI\'s: use "max_tokens"',
    cache_control:
      'top-level (automatic) cache_control is not accepted: forkpool places its own breakpoints; mark the blocks you want cached with "cache_control"',
    temperature: SAMPLING_REFUSED,
    top_p: SAMPLING_REFUSED,
    top_k: SAMPLING_REFUSED,
  };

  const SYSTEM_FIRST =
    'the system prompt goes in the top-level "system" field: Anthropic takes a { "role": "system" } message only mid-conversation (right after a user message)';

  type Block = Record<string, unknown>;
  type Path = (string | number)[];

  /*
   * Whitespace-only text. Anthropic's API answers it with a 400 ("text content blocks must contain
   * non-whitespace text") when it is all the text of a message or of the system prompt, and takes it
   * beside other content. Measured against the API and written up in
   * github.com/LibreChat-AI/agents/pull/124 and github.com/experientiallabs/experiential/pull/804:
   * refused: user `"\n"`, user or assistant `[{text: " "}]` alone, system `"  "`; accepted:
   * `[{text: " "}, {text: "ok"}]`, assistant `[{text: "\n\n"}, tool_use]`, a tool_result's
   * content `" "`, system `""`. A string content is the API's shorthand for one text block (the
   * SDK's MessageParam docs), so it follows the same rule. No exception for a final assistant
   * message: there the API refuses any trailing whitespace ("final assistant content cannot end with
   * trailing whitespace"). A tool_result's own content is not looked at (the API takes whitespace there).
   */
  const WHITESPACE_MESSAGE =
    'holds only whitespace text: Anthropic\'s API refuses a message whose text is all whitespace ("text content blocks must contain non-whitespace text"); leave the block out, or give the message other content';
  const WHITESPACE_SYSTEM =
    'holds only whitespace text: Anthropic\'s API refuses a system prompt that is all whitespace ("system: text content blocks must contain non-whitespace text"); leave it out or write one';

  const isBlank = (text: unknown): boolean => typeof text === 'string' && text !== '' && text.trim() === '';

  /**
   * The path (below `content`) to name when `content` is whitespace text and nothing else: `[]` for a
   * string, `[i, "text"]` for the first whitespace block of an array of text blocks only.
   */
  function whitespaceOnly(content: unknown): Path | undefined {
    if (typeof content === 'string') return isBlank(content) ? [] : undefined;
    if (!Array.isArray(content) || content.length === 0) return undefined;
    const texts = content as readonly unknown[];
    const onlyText = texts.every(
      (block) =>
        block !== null && typeof block === 'object' && (block as Block).type === 'text' && typeof (block as Block).text === 'string',
    );
    if (!onlyText || texts.some((block) => ((block as Block).text as string).trim() !== '')) return undefined;
    const first = texts.findIndex((block) => isBlank((block as Block).text));
    return first < 0 ? undefined : [first, 'text'];
  }

  const AnthropicMessagesSessionSchema = z
    .strictObject(
      {
        format: z.literal('anthropic-messages', {
          error: (iss) =>
            iss.input === undefined
              ? 'is required ("anthropic-messages" for a session in Anthropic Messages\' shape)'
              : 'must be "anthropic-messages"',
        }),
        model: nonEmpty('the model name'),
        system: systemContent.optional(),
        tools: z.array(ToolSchema, { error: 'must be an array of tools ({ "name", "description", "input_schema" })' }).optional(),
        tool_choice: ToolChoiceSchema.optional(),
        messages: z
          .array(MessageSchema, { error: 'must be an array of messages ({ "role", "content" })' })
          .min(1, { error: 'must hold at least one message' }),
        max_tokens: z
          .number({ error: (iss) => (iss.input === undefined ? 'is required (the most tokens a reply may use)' : positiveRule) })
          .int({ error: positiveRule })
          .min(1, {
            error: (iss) =>
              iss.input === 0
                ? 'must be a positive integer: 0 only pre-warms the cache and would leave every fork without room to answer'
                : positiveRule,
          }),
        thinking: ThinkingSchema.optional(),
        stop_sequences: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
      },
      strictFields('an anthropic-messages session', ANTHROPIC_SESSION_KEYS, ANTHROPIC_SESSION_HINTS),
    )
    .check((ctx) => {
      const session = ctx.value;
      const rule = (path: Path, message: string, input: unknown = undefined) => ctx.issues.push({ code: 'custom', input, path, message });

      // The API rejects a request that declares one tool twice; say so before any fork runs.
      const declared = new Set<string>();
      session.tools?.forEach((tool, t) => {
        if (declared.has(tool.name)) rule(['tools', t, 'name'], `the tool "${tool.name}" is declared twice`, tool.name);
        declared.add(tool.name);
      });

      const choice = session.tool_choice;
      if (choice?.type === 'tool' && !declared.has(choice.name)) {
        rule(['tool_choice', 'name'], `names the tool "${choice.name}", which "tools" does not declare`, choice.name);
      }
      const thinking = session.thinking;
      const thinkingOn = thinking?.type === 'enabled' || thinking?.type === 'adaptive';
      if (thinkingOn && (choice?.type === 'any' || choice?.type === 'tool')) {
        rule(
          ['tool_choice', 'type'],
          `"${choice.type}" forces a tool call, which Anthropic's API refuses while thinking is on ("thinking": "${thinking.type}"): use "auto" or "none"`,
          choice.type,
        );
      }
      if (thinking?.type === 'enabled' && thinking.budget_tokens >= session.max_tokens) {
        rule(
          ['thinking', 'budget_tokens'],
          `must be less than "max_tokens" (${session.max_tokens}): thinking tokens count toward it`,
          thinking.budget_tokens,
        );
      }

      const messages = session.messages;
      const last = messages.length - 1;

      // Text that is all whitespace, in the system prompt and in each message.
      const blank = whitespaceOnly(session.system);
      if (blank) rule(['system', ...blank], WHITESPACE_SYSTEM);

      // Where content may be empty, and where a system message may stand.
      messages.forEach((message, m) => {
        const content: unknown = message.content;
        const empty = content === '' || (Array.isArray(content) && content.length === 0);
        if (empty && !(m === last && message.role === 'assistant')) {
          rule(
            ['messages', m, 'content'],
            "must not be empty (Anthropic's API takes empty content only in a final assistant message)",
            content,
          );
        }
        const whitespace = whitespaceOnly(content);
        if (whitespace) rule(['messages', m, 'content', ...whitespace], WHITESPACE_MESSAGE);
        if (message.role !== 'system') return;
        if (m === 0) rule(['messages', 0, 'role'], SYSTEM_FIRST, 'system');
        else if (messages[m - 1]?.role !== 'user') {
          rule(
            ['messages', m, 'role'],
            'a { "role": "system" } message must come right after a user message (a mid-conversation system message)',
            'system',
          );
        } else if (m < last && messages[m + 1]?.role !== 'assistant') {
          rule(
            ['messages', m, 'role'],
            'a { "role": "system" } message must be the last message or be followed by an assistant message',
            'system',
          );
        }
      });

      // Tool calls. Consecutive messages of one role are one turn to the API: the tool_use blocks of
      // an assistant turn are each answered, once, by a tool_result of the user turn right after it
      // (results first in it), unless the assistant turn ends the conversation (calls in flight).
      // tool_use ids are unique in a session.
      interface At {
        message: number;
        block: number;
      }
      const callAt = new Map<string, At>();
      const answeredAt = new Map<string, At>();
      // A call answered somewhere else is reported where its result stands, not as unanswered.
      const resultIds = new Set<string>();
      for (const message of messages) {
        if (message.role === 'user' && Array.isArray(message.content)) {
          for (const block of message.content as readonly Block[])
            if (block.type === 'tool_result') resultIds.add(block.tool_use_id as string);
        }
      }
      let role: string | undefined;
      let calls = new Map<string, At>();
      let answers = new Set<string>();
      let resultsOpen = true;
      const reportUnanswered = () => {
        for (const [id, at] of calls) {
          if (answers.has(id) || resultIds.has(id)) continue;
          rule(
            ['messages', at.message, 'content', at.block, 'id'],
            `the tool_use "${id}" is not answered: the user message right after it must hold a tool_result for each of its tool_use blocks`,
            id,
          );
        }
      };
      messages.forEach((message, m) => {
        if (message.role !== role) {
          if (role === 'user') reportUnanswered();
          if (role !== 'assistant' || message.role !== 'user') calls = new Map();
          answers = new Set();
          resultsOpen = true;
          role = message.role;
        }
        if (typeof message.content === 'string') {
          resultsOpen = false;
          return;
        }
        (message.content as readonly Block[]).forEach((block, b) => {
          if (message.role === 'assistant' && block.type === 'tool_use') {
            const id = block.id as string;
            const earlier = callAt.get(id);
            if (earlier) {
              rule(
                ['messages', m, 'content', b, 'id'],
                `the tool_use id "${id}" is already used by messages[${earlier.message}].content[${earlier.block}]; tool_use ids must be unique in a session`,
                id,
              );
            }
            callAt.set(id, { message: m, block: b });
            calls.set(id, { message: m, block: b });
            return;
          }
          if (message.role !== 'user' || block.type !== 'tool_result') {
            resultsOpen = false;
            return;
          }
          if (!resultsOpen) {
            rule(
              ['messages', m, 'content', b],
              "a tool_result must come before any other block of its user message (Anthropic's API refuses text ahead of tool results; consecutive user messages count as one)",
            );
          }
          const id = block.tool_use_id as string;
          const answered = answeredAt.get(id);
          const call = callAt.get(id);
          const problem =
            answered !== undefined
              ? `the tool_use "${id}" is already answered by messages[${answered.message}].content[${answered.block}]; a tool_use is answered once`
              : calls.has(id)
                ? undefined
                : call !== undefined
                  ? `answers the tool_use "${id}" of messages[${call.message}], but a tool_result must answer a tool_use of the assistant message right before it (consecutive assistant messages count as one)`
                  : `"${id}" answers no tool_use: a tool_result must answer a tool_use of the assistant message right before it`;
          if (problem) rule(['messages', m, 'content', b, 'tool_use_id'], problem, id);
          answeredAt.set(id, { message: m, block: b });
          answers.add(id);
        });
      });
      if (role === 'user') reportUnanswered();

      // Cache breakpoints, in the order the API reads them: tools, system, then messages (a block's
      // own content before the block).
      const marks: { path: Path; ttl: unknown }[] = [];
      const visit = (block: unknown, path: Path): void => {
        if (block === null || typeof block !== 'object') return;
        const inner = (block as Block).content;
        if (Array.isArray(inner)) visitAll(inner, [...path, 'content']);
        const control = (block as Block).cache_control;
        if (control !== null && typeof control === 'object') marks.push({ path: [...path, 'cache_control'], ttl: (control as Block).ttl });
      };
      const visitAll = (blocks: readonly unknown[], path: Path): void => {
        for (const [i, block] of blocks.entries()) visit(block, [...path, i]);
      };
      visitAll(session.tools ?? [], ['tools']);
      if (Array.isArray(session.system)) visitAll(session.system, ['system']);
      for (const [m, message] of messages.entries()) {
        if (Array.isArray(message.content)) visitAll(message.content, ['messages', m, 'content']);
      }
      const fiveMinute = marks.find((mark) => mark.ttl !== '1h');
      marks.forEach((mark, k) => {
        if (k === 4) {
          rule(
            mark.path,
            "is a 5th cache_control breakpoint: Anthropic's API takes at most 4 in a request (tools, system and messages together)",
          );
        }
        if (mark.ttl === '1h' && fiveMinute !== undefined && marks.indexOf(fiveMinute) < k) {
          rule(
            [...mark.path, 'ttl'],
            `a 1-hour breakpoint must not come after a 5-minute one (${formatPath(fiveMinute.path)}): Anthropic's API reads tools, then system, then messages, and takes 1-hour breakpoints first`,
            '1h',
          );
        }
      });
    });

  return {
    AnthropicMessagesSessionSchema,
    CacheControlSchema,
    DocumentBlockSchema,
    ImageBlockSchema,
    MessageSchema,
    RedactedThinkingBlockSchema,
    SearchResultBlockSchema,
    TextBlockSchema,
    ThinkingBlockSchema,
    ToolResultBlockSchema,
    ToolSchema,
    ToolUseBlockSchema,
    UserTextBlockSchema,
  };
}

type Built = ReturnType<typeof build>;
let built: Built | undefined;

/** A session in Anthropic Messages' shape (built on first use). */
export function anthropicMessagesSessionSchema(): Built['AnthropicMessagesSessionSchema'] {
  built ??= build();
  return built.AnthropicMessagesSessionSchema;
}

export type AnthropicMessagesSession = z.input<Built['AnthropicMessagesSessionSchema']>;
export type AnthropicMessage = z.input<Built['MessageSchema']>;
export type AnthropicTool = z.input<Built['ToolSchema']>;
export type AnthropicToolUseBlock = z.input<Built['ToolUseBlockSchema']>;
export type AnthropicToolResultBlock = z.input<Built['ToolResultBlockSchema']>;
export type AnthropicCacheControl = NonNullable<z.input<Built['CacheControlSchema']>>;
export type AnthropicContentBlock =
  | z.input<Built['TextBlockSchema']>
  | z.input<Built['UserTextBlockSchema']>
  | z.input<Built['ImageBlockSchema']>
  | z.input<Built['DocumentBlockSchema']>
  | z.input<Built['SearchResultBlockSchema']>
  | z.input<Built['ThinkingBlockSchema']>
  | z.input<Built['RedactedThinkingBlockSchema']>
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

/**
 * Validates an already-parsed anthropic-messages session object (from a file or from code) and
 * returns that same object: a fork sends the parent's objects in the parent's own key order (byte
 * fidelity), so zod's rebuilt copy is thrown away.
 */
export function parseAnthropicMessagesSession(json: unknown, source?: string): AnthropicMessagesSession {
  return checkSessionObject<AnthropicMessagesSession>(
    anthropicMessagesSessionSchema(),
    json,
    '{ "format": "anthropic-messages", "model", "max_tokens", "messages", … }',
    source,
  );
}
