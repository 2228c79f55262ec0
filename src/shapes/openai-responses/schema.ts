import type {
  EasyInputMessage,
  FunctionTool,
  ResponseCompactionItemParam,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionToolCall,
  ResponseInputFile,
  ResponseInputFileContent,
  ResponseInputImage,
  ResponseInputImageContent,
  ResponseInputItem,
  ResponseInputText,
  ResponseInputTextContent,
  ResponseOutputMessage,
  ResponseOutputRefusal,
  ResponseOutputText,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { z } from 'zod';
import { describeValue } from '../../input/issues.js';
import { isRecord } from '../../input/json.js';
import { checkSessionObject } from '../../input/session-object.js';
import { JsonObjectSchema, byJsonType, byKind, choices, kindOf, nonEmpty, pushIssuesOf, strictFields } from '../../input/rules.js';
import type { Assert, Assignable, SameKeys } from '../../input/type-checks.js';

/*
 * A parent session in OpenAI's Responses API shape (`"format": "openai-responses"`): the request
 * body of `client.responses.create` without `stream`, as the `openai` SDK 6.x types it
 * (resources/responses/responses.d.ts: ResponseCreateParamsNonStreaming, ResponseInputItem).
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Items, content parts, tools and settings are strict: a field the SDK does not type is an error,
 * not something quietly sent. Opaque values (a call's `arguments` string, a tool's `parameters`
 * beyond being a JSON object, a reasoning item's `encrypted_content`, a compaction's) are not
 * looked into; reasoning items are checked in outline and never altered.
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 *
 * Decisions:
 * - A session is the whole conversation, sent as it is: `previous_response_id`, `conversation`
 *   and `prompt` (state kept at OpenAI, outside what forkpool sends), `background`,
 *   `context_management` (compaction mid-request) and `stream`/`stream_options` are refused, each
 *   with its own rule. Chat Completions' names (`messages`, `max_tokens`, `response_format`,
 *   `reasoning_effort`, the "tool" role, `tool_calls`…) get a rule naming the Responses field.
 * - Input items taken: messages, `function_call`, `function_call_output`, `reasoning`,
 *   `item_reference` and `compaction` (an opaque summary of earlier items from
 *   /responses/compact). A message is one of the SDK's three: an EasyInputMessage (any role;
 *   content a string, or input parts for user, system and developer), a ResponseInputItem.Message
 *   (a user, system or developer message with a `status`: input parts only) or a
 *   ResponseOutputMessage (an assistant message whose content is an array: output_text and
 *   refusal parts, with its `id`, `status` and `"type": "message"`, as the response gave it).
 *   An assistant message of input parts is refused (the API takes only output_text and refusal
 *   parts from the assistant), so a hand-written assistant turn is a string.
 * - Built-in tools (web search, file search, computer use, code interpreter, MCP, image
 *   generation, local shell, shell, apply_patch, tool search, programmatic tool calling), custom
 *   and namespace tools are refused, in `tools`, in `tool_choice` and as the items they leave in a
 *   conversation, as are a call's `namespace`, a `caller` of type "program", a tool's
 *   `allowed_callers: ["programmatic"]` and `defer_loading: true`: forkpool runs the session's own
 *   function tools. `compaction_trigger` (a request to compact, not a turn) and `additional_tools`
 *   (tools declared mid-conversation) are refused too.
 * - Calls and outputs pair by call_id: call_ids are unique; a `function_call_output` answers a
 *   `function_call` before it, once. Items need not be adjacent (the API pairs by call_id). A call
 *   may stay unanswered only at the end of `input`, with nothing but function calls, their outputs
 *   and reasoning items after it: a parent mid-turn, whose calls the fork rules answer. An
 *   `item_reference` or a `compaction` item may stand for calls this schema cannot see, so an
 *   output after one of them may answer a call that is not in `input`.
 * - A reasoning item must be followed by what the model produced after it: an assistant message
 *   or a function_call (other reasoning items may stand between; an item_reference may stand for
 *   it), as the API refuses a reasoning item "provided without its required following item". Which item a
 *   reasoning item belongs to is the API's to know (by ids and encrypted content); whether a
 *   stored item is found (`store`, ids without `encrypted_content`) is not checked either.
 * - Item ids are unique in `input` (the API refuses "Duplicate item found with id").
 * - `max_output_tokens` is at least 16 (the API refuses less); `metadata` holds at most 16 keys
 *   of at most 64 characters, each value at most 512; `safety_identifier` is at most 64
 *   characters. `prompt_cache_options` and `prompt_cache_retention` may stand together (the SDK
 *   documents them as independent for the Responses API). `include` takes every value the SDK
 *   types (those naming built-in tools' outputs are harmless without the tools); `truncation`
 *   (deprecated) and `user` (deprecated) are taken as the SDK types them.
 * - Required where the SDK requires it: an input_image's `detail`, an output_text's
 *   `annotations`, a function tool's `parameters` and `strict`, a reasoning item's `id` and
 *   `summary`. A tool's `parameters` must be a JSON object: null, which the SDK allows, would
 *   declare no schema for the arguments a fork's tool is called with.
 * - At the end of the file, compile-time checks hold the schema to the SDK's own types.
 */

/*
 * The schemas are built on first use, not when the module loads: a process (or a fork's thread)
 * that never checks a session of this shape does not pay for building them.
 */
function build() {
  type Path = (string | number)[];

  /** A strict object: an unknown field is named, with the fields it takes (and a hint where a common mistake has one). */
  function strict<const S extends z.core.$ZodLooseShape>(what: string, shape: S, hints: Record<string, string> = {}) {
    return z.strictObject(shape, strictFields(what, Object.keys(shape), hints));
  }

  /** `schema` with the rule that at least one of `keys` holds a value (not null). */
  function needsOneOf<S extends z.ZodType<Record<string, unknown>>>(schema: S, keys: readonly string[], what: string): S {
    return schema.check((ctx) => {
      if (!keys.some((key) => ctx.value[key] !== undefined && ctx.value[key] !== null)) {
        ctx.issues.push({ code: 'custom', input: ctx.value, message: `${what} needs ${choices(keys)}` });
      }
    });
  }

  const STATUSES = ['in_progress', 'completed', 'incomplete'] as const;
  const status = z.enum(STATUSES, { error: `must be ${choices(STATUSES)}` });

  // ── Content parts ───────────────────────────────────────────────────────────────────────────────

  /** OpenAI's explicit cache breakpoint on an input part (GPT-5.6 and later; `explicit` is its only mode). */
  const breakpoint = strict('a prompt_cache_breakpoint', {
    mode: z.literal('explicit', { error: 'must be "explicit" (the only mode of a prompt_cache_breakpoint)' }),
  });

  const IMAGE_DETAILS = ['low', 'high', 'auto', 'original'] as const;
  const imageDetail = z.enum(IMAGE_DETAILS, {
    error: (iss) =>
      iss.input === undefined ? `is required (${choices(IMAGE_DETAILS)}: the SDK types it required)` : `must be ${choices(IMAGE_DETAILS)}`,
  });
  const FILE_DETAILS = ['auto', 'low', 'high'] as const;
  const fileDetail = z.enum(FILE_DETAILS, { error: `must be ${choices(FILE_DETAILS)}` });
  const nullableString = z.string().nullable().optional();

  const inputTextShape = { type: z.literal('input_text'), text: z.string(), prompt_cache_breakpoint: breakpoint.optional() };
  const inputImageShape = {
    type: z.literal('input_image'),
    detail: imageDetail,
    file_id: nullableString,
    image_url: nullableString,
    prompt_cache_breakpoint: breakpoint.optional(),
  };
  const inputFileShape = {
    type: z.literal('input_file'),
    detail: fileDetail.optional(),
    file_data: z.string().optional(),
    file_id: nullableString,
    file_url: z.string().optional(),
    filename: z.string().optional(),
    prompt_cache_breakpoint: breakpoint.optional(),
  };
  const IMAGE_SOURCES = ['image_url', 'file_id'];
  const FILE_SOURCES = ['file_data', 'file_id', 'file_url'];

  /** A message's input parts (ResponseInputText, ResponseInputImage, ResponseInputFile). */
  const INPUT_PARTS = {
    input_text: strict('an input_text part', inputTextShape),
    input_image: needsOneOf(strict('an input_image part', inputImageShape), IMAGE_SOURCES, 'an input_image part'),
    input_file: needsOneOf(strict('an input_file part', inputFileShape), FILE_SOURCES, 'an input_file part'),
  };

  /** A function_call_output's parts (ResponseInputTextContent, …): the same, with the nulls the SDK allows there. */
  const OUTPUT_PARTS = {
    input_text: strict('an input_text part', { ...inputTextShape, prompt_cache_breakpoint: breakpoint.nullable().optional() }),
    input_image: needsOneOf(
      strict('an input_image part', {
        ...inputImageShape,
        detail: imageDetail.nullable().optional(),
        prompt_cache_breakpoint: breakpoint.nullable().optional(),
      }),
      IMAGE_SOURCES,
      'an input_image part',
    ),
    input_file: needsOneOf(
      strict('an input_file part', {
        ...inputFileShape,
        file_data: nullableString,
        file_url: nullableString,
        filename: nullableString,
        prompt_cache_breakpoint: breakpoint.nullable().optional(),
      }),
      FILE_SOURCES,
      'an input_file part',
    ),
  };

  const MODEL_PARTS_IN_INPUT = "output_text and refusal parts are the model's: they go in an assistant message";
  const CHAT_PARTS: Record<string, string> = {
    text: 'is Chat Completions\' part type: a Responses input part is { "type": "input_text", "text" }',
    image_url: 'is Chat Completions\' part type: a Responses image is { "type": "input_image", "image_url", "detail" }',
    file: 'is Chat Completions\' part type: a Responses file is { "type": "input_file", … }',
  };

  const inputParts = z.array(
    byKind('type', 'a content part', INPUT_PARTS, { ...CHAT_PARTS, output_text: MODEL_PARTS_IN_INPUT, refusal: MODEL_PARTS_IN_INPUT }),
  );

  /** A citation the response gave (ResponseOutputText's annotations), field for field. */
  const ANNOTATIONS = {
    file_citation: strict('a file_citation annotation', {
      type: z.literal('file_citation'),
      file_id: z.string(),
      filename: z.string(),
      index: z.number(),
    }),
    url_citation: strict('a url_citation annotation', {
      type: z.literal('url_citation'),
      url: z.string(),
      title: z.string(),
      start_index: z.number(),
      end_index: z.number(),
    }),
    container_file_citation: strict('a container_file_citation annotation', {
      type: z.literal('container_file_citation'),
      container_id: z.string(),
      file_id: z.string(),
      filename: z.string(),
      start_index: z.number(),
      end_index: z.number(),
    }),
    file_path: strict('a file_path annotation', { type: z.literal('file_path'), file_id: z.string(), index: z.number() }),
  };

  const logprobShape = { token: z.string(), bytes: z.array(z.number()), logprob: z.number() };

  const OutputTextPartSchema = strict('an output_text part', {
    type: z.literal('output_text'),
    text: z.string(),
    annotations: z.array(byKind('type', 'an annotation', ANNOTATIONS), {
      error: (iss) =>
        iss.input === undefined
          ? 'is required (the annotations the response gave: [] for none)'
          : `must be an array of annotations, not ${describeValue(iss.input)}`,
    }),
    logprobs: z.array(strict('a logprob', { ...logprobShape, top_logprobs: z.array(strict('a top logprob', logprobShape)) })).optional(),
  });

  const RefusalPartSchema = strict('a refusal part', { type: z.literal('refusal'), refusal: z.string() });

  const ASSISTANT_PARTS_ONLY =
    'an assistant message holds output_text and refusal parts (the API refuses input parts from the assistant): give a hand-written turn as a string';

  const outputParts = z.array(
    byKind(
      'type',
      'a content part',
      { output_text: OutputTextPartSchema, refusal: RefusalPartSchema },
      {
        input_text: ASSISTANT_PARTS_ONLY,
        input_image: ASSISTANT_PARTS_ONLY,
        input_file: ASSISTANT_PARTS_ONLY,
        text: 'is Chat Completions\' part type: the model\'s text is { "type": "output_text", "text", "annotations": [] }',
      },
    ),
  );

  // ── Messages ────────────────────────────────────────────────────────────────────────────────────

  const MESSAGE_HINTS: Record<string, string> = {
    tool_calls:
      'is Chat Completions\': a Responses call is an item of its own, { "type": "function_call", "call_id", "name", "arguments" }, after the message',
    tool_call_id:
      'is Chat Completions\': a function\'s result is an item of its own, { "type": "function_call_output", "call_id", "output" }',
    function_call: 'is Chat Completions\' (deprecated): a Responses call is an item of its own, { "type": "function_call", … }',
    parts: 'is not a Responses message field: use "content" (a string or an array of parts)',
  };

  const phase = z.enum(['commentary', 'final_answer'], { error: 'must be "commentary" or "final_answer" (or null)' }).nullable().optional();
  const messageType = z.literal('message', { error: 'must be "message" (or left out)' }).optional();

  type InputRole = 'user' | 'system' | 'developer';
  type MessageRole = InputRole | 'assistant';

  /** An EasyInputMessage: `{ role, content, phase?, type? }`. */
  function easyMessage<R extends MessageRole, C extends z.ZodType>(role: R, content: C, hints: Record<string, string> = MESSAGE_HINTS) {
    return strict(`a "${role}" message`, { role: z.literal(role), content, phase, type: messageType }, hints);
  }

  const inputContent = byJsonType('a string or an array of input_text, input_image and input_file parts', {
    string: z.string(),
    array: inputParts,
  });

  /** ResponseInputItem.Message: a user, system or developer message with a `status`, its content input parts. */
  function statusMessage<R extends InputRole>(role: R) {
    return strict(
      `a "${role}" message with a "status"`,
      {
        role: z.literal(role),
        content: byJsonType(
          'an array of input_text, input_image and input_file parts (a message with a "status" holds parts, not a string)',
          { array: inputParts },
        ),
        status: status.optional(),
        type: messageType,
      },
      MESSAGE_HINTS,
    );
  }

  /** A user, system or developer message: the SDK's Message when it carries a `status`, an EasyInputMessage otherwise. */
  function inputMessage<R extends InputRole>(role: R) {
    const easy = easyMessage(role, inputContent);
    const withStatus = statusMessage(role);
    return z
      .custom<z.input<typeof easy> | z.input<typeof withStatus>>()
      .check((ctx) => pushIssuesOf(isRecord(ctx.value) && Object.hasOwn(ctx.value, 'status') ? withStatus : easy, ctx.value, ctx.issues));
  }

  const OUTPUT_MESSAGE = 'an assistant message with content parts is an output message, as the response gave it';
  const OUTPUT_MESSAGE_HINT = `${OUTPUT_MESSAGE}: its content is an array of output_text and refusal parts`;

  /** An assistant's EasyInputMessage: its content is a string. */
  const EasyAssistantMessageSchema = easyMessage(
    'assistant',
    z.string({
      error: (iss) =>
        iss.input === undefined
          ? 'is required'
          : `must be a string, or an array of output_text and refusal parts, not ${describeValue(iss.input)}`,
    }),
    { ...MESSAGE_HINTS, id: OUTPUT_MESSAGE_HINT, status: OUTPUT_MESSAGE_HINT },
  );

  /** A ResponseOutputMessage: the model's message as a response output it. */
  const OutputMessageSchema = strict(
    'an assistant output message',
    {
      id: z
        .string({
          error: (iss) =>
            iss.input === undefined ? `is required (${OUTPUT_MESSAGE}: "msg_…")` : `must be a string, not ${describeValue(iss.input)}`,
        })
        .min(1, {
          error: 'an output message id must not be empty',
        }),
      role: z.literal('assistant'),
      content: outputParts,
      status: z.enum(STATUSES, {
        error: (iss) =>
          iss.input === undefined ? `is required (${OUTPUT_MESSAGE}: ${choices(STATUSES)})` : `must be ${choices(STATUSES)}`,
      }),
      type: z.literal('message', {
        error: (iss) => (iss.input === undefined ? `is required ("message": ${OUTPUT_MESSAGE})` : 'must be "message"'),
      }),
      phase,
    },
    MESSAGE_HINTS,
  );

  const AssistantMessageSchema = z
    .custom<z.input<typeof EasyAssistantMessageSchema> | z.input<typeof OutputMessageSchema>>()
    .check((ctx) =>
      pushIssuesOf(
        isRecord(ctx.value) && Array.isArray(ctx.value.content) ? OutputMessageSchema : EasyAssistantMessageSchema,
        ctx.value,
        ctx.issues,
      ),
    );

  const RESULTS_ARE_ITEMS =
    'is Chat Completions\': a function\'s result is an item of its own, { "type": "function_call_output", "call_id", "output" }';

  const MessageSchema = byKind(
    'role',
    'a message',
    { user: inputMessage('user'), assistant: AssistantMessageSchema, system: inputMessage('system'), developer: inputMessage('developer') },
    {
      tool: `the "tool" role ${RESULTS_ARE_ITEMS}`,
      function: `the "function" role ${RESULTS_ARE_ITEMS}`,
      model: 'the "model" role is Gemini\'s: the model\'s messages are "assistant" messages',
    },
  );

  // ── Calls, outputs, reasoning and the other items ───────────────────────────────────────────────

  const PROGRAMMATIC_REFUSED =
    "calls made by programmatic tool calling (a built-in tool) are not supported: forkpool runs the session's own function tools";

  /** Who made a call: the model itself ("direct"). */
  const caller = byKind(
    'type',
    'a caller',
    { direct: strict('a caller', { type: z.literal('direct') }) },
    { program: PROGRAMMATIC_REFUSED },
  )
    .nullable()
    .optional();

  const CALL_FLAT = 'a function_call item holds "name" and "arguments" itself';

  const CHAT_CALL_HINTS: Record<string, string> = {
    function: `is Chat Completions' nesting: ${CALL_FLAT}`,
    tool_call_id: 'is Chat Completions\': a function_call item carries its id in "call_id"',
  };

  const FunctionCallSchema = strict(
    'a function_call item',
    {
      type: z.literal('function_call'),
      call_id: nonEmpty('a call_id'),
      name: z
        .string({
          error: (iss) =>
            iss.input === undefined
              ? `is required (${CALL_FLAT}, not in Chat Completions' "function")`
              : `must be a string, not ${describeValue(iss.input)}`,
        })
        .min(1, { error: 'a function name must not be empty' }),
      // Kept byte for byte as the model wrote it: not required to be valid JSON here.
      arguments: z.string({
        error: (iss) =>
          iss.input === undefined
            ? 'is required (the arguments as the model wrote them: a string of JSON)'
            : `must be a string (the arguments as JSON text, as the model wrote them), not ${describeValue(iss.input)}`,
      }),
      id: z.string().optional(),
      status: status.optional(),
      caller,
      namespace: z
        .never({ error: 'namespace tools are not supported: forkpool runs the session\'s own function tools, declared in "tools"' })
        .optional(),
    },
    {
      ...CHAT_CALL_HINTS,
      parsed_arguments: "is added by the openai SDK's responses.parse() to what it returns, and is not an input field: leave it out",
    },
  );

  const FunctionCallOutputSchema = strict(
    'a function_call_output item',
    {
      type: z.literal('function_call_output'),
      call_id: nonEmpty('a call_id'),
      output: byJsonType('a string or an array of input_text, input_image and input_file parts', {
        string: z.string(),
        array: z.array(byKind('type', 'an output part', OUTPUT_PARTS, CHAT_PARTS)),
      }),
      id: nullableString,
      status: status.nullable().optional(),
      caller,
    },
    {
      ...CHAT_CALL_HINTS,
      content:
        'a function_call_output carries the result in "output" (a string, or an array of input_text, input_image and input_file parts)',
    },
  );

  const ReasoningSchema = strict(
    'a reasoning item',
    {
      type: z.literal('reasoning'),
      id: nonEmpty('a reasoning item id'),
      summary: z.array(
        byKind('type', 'a summary part', { summary_text: strict('a summary part', { type: z.literal('summary_text'), text: z.string() }) }),
        {
          error: (iss) =>
            iss.input === undefined
              ? 'is required (the summary the response gave: [] for none)'
              : `must be an array of summary parts, not ${describeValue(iss.input)}`,
        },
      ),
      content: z
        .array(
          byKind('type', 'a reasoning content part', {
            reasoning_text: strict('a reasoning content part', { type: z.literal('reasoning_text'), text: z.string() }),
          }),
        )
        .optional(),
      encrypted_content: z.string().nullable().optional(),
      status: status.optional(),
    },
    { text: 'a reasoning item holds its text in "summary" ({ "type": "summary_text", "text" }) and "content"' },
  );

  const ItemReferenceSchema = strict('an item_reference', {
    type: z.literal('item_reference', { error: 'must be "item_reference" (or left out)' }).nullable().optional(),
    id: nonEmpty('an item id'),
  });

  const CompactionSchema = strict('a compaction item', {
    type: z.literal('compaction'),
    encrypted_content: z.string(),
    id: nullableString,
  });

  const builtIn = (tool: string) =>
    `come from ${tool}, a built-in tool forkpool does not run: forkpool runs the session's own function tools`;

  /** Items that built-in tools leave in a conversation, and the other items a session does not take. */
  const REFUSED_ITEMS: Record<string, string> = {
    ...Object.fromEntries(
      Object.entries({
        file_search_call: 'file search',
        web_search_call: 'web search',
        computer_call: 'computer use',
        computer_call_output: 'computer use',
        code_interpreter_call: 'the code interpreter',
        image_generation_call: 'image generation',
        local_shell_call: 'the local shell tool',
        local_shell_call_output: 'the local shell tool',
        shell_call: 'the shell tool',
        shell_call_output: 'the shell tool',
        apply_patch_call: 'the apply_patch tool',
        apply_patch_call_output: 'the apply_patch tool',
        mcp_list_tools: 'MCP',
        mcp_approval_request: 'MCP',
        mcp_approval_response: 'MCP',
        mcp_call: 'MCP',
        tool_search_call: 'tool search',
        tool_search_output: 'tool search',
        program: 'programmatic tool calling',
        program_output: 'programmatic tool calling',
      }).map(([kind, tool]) => [kind, `"${kind}" items ${builtIn(tool)}`]),
    ),
    custom_tool_call: 'custom tool calls (free-form text input) are not supported: forkpool runs function tools, with JSON arguments',
    custom_tool_call_output:
      'custom tool calls (free-form text input) are not supported: forkpool runs function tools, with JSON arguments',
    additional_tools: 'adds tools mid-conversation, which forkpool does not take: declare the session\'s function tools in "tools"',
    compaction_trigger: "asks the API to compact the context instead of answering: a fork asks for the model's next turn, so leave it out",
  };

  const ItemByTypeSchema = byKind(
    'type',
    'an input item',
    {
      message: MessageSchema,
      function_call: FunctionCallSchema,
      function_call_output: FunctionCallOutputSchema,
      reasoning: ReasoningSchema,
      item_reference: ItemReferenceSchema,
      compaction: CompactionSchema,
    },
    REFUSED_ITEMS,
  );

  /** An input item: by its `type`; without one (or null), a message when it has a `role`, else an item_reference (the SDK leaves both types optional). */
  const ItemSchema = z.custom<z.input<typeof ItemByTypeSchema>>().check((ctx) => {
    const value: unknown = ctx.value;
    const untyped = isRecord(value) && (value.type === undefined || value.type === null);
    const schema = !untyped
      ? ItemByTypeSchema
      : Object.hasOwn(value, 'role')
        ? MessageSchema
        : Object.hasOwn(value, 'id')
          ? ItemReferenceSchema
          : ItemByTypeSchema;
    pushIssuesOf(schema, value, ctx.issues);
  });

  // ── Tools and tool choice ───────────────────────────────────────────────────────────────────────

  /** OpenAI's rule for a function's name. */
  const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

  const TOOL_SHAPE = '{ "type": "function", "name", "description", "parameters", "strict" }';
  const BUILT_IN_TOOL_TYPES = [
    'file_search',
    'computer',
    'computer_use',
    'computer_use_preview',
    'web_search',
    'web_search_2025_08_26',
    'web_search_preview',
    'web_search_preview_2025_03_11',
    'mcp',
    'code_interpreter',
    'programmatic_tool_calling',
    'image_generation',
    'local_shell',
    'shell',
    'tool_search',
    'apply_patch',
  ];
  const builtInTool = (type: string) =>
    `"${type}" is a built-in tool, which forkpool does not run: forkpool runs the session's own function tools (${TOOL_SHAPE})`;
  const CUSTOM_TOOLS_REFUSED = `custom tools (free-form text input) are not supported: forkpool runs function tools, with JSON arguments (${TOOL_SHAPE})`;

  const FunctionToolSchema = strict(
    'a function tool',
    {
      type: z.literal('function'),
      name: z
        .string({
          error: (iss) =>
            iss.input === undefined
              ? `is required (a Responses function tool is flat: ${TOOL_SHAPE})`
              : `must be a string, not ${describeValue(iss.input)}`,
        })
        .regex(FUNCTION_NAME, {
          error: (iss) => `${JSON.stringify(iss.input)} is not a function name OpenAI takes: 1 to 64 letters, digits, _ and -`,
        }),
      description: z.string().nullable().optional(),
      parameters: z.record(z.string(), z.unknown(), {
        error: (iss) =>
          iss.input === undefined
            ? 'is required (the JSON Schema of the function\'s arguments: { "type": "object", … })'
            : `must be a JSON object (the JSON Schema of the function's arguments), not ${describeValue(iss.input)}`,
      }),
      strict: z
        .boolean({
          error: (iss) =>
            iss.input === undefined
              ? 'is required (true, false or null: whether the API holds the arguments to "parameters"; the SDK types it required)'
              : `must be true, false or null, not ${describeValue(iss.input)}`,
        })
        .nullable(),
      allowed_callers: z
        .array(
          z.literal('direct', {
            error:
              'must be "direct": programmatic tool calling is a built-in tool forkpool does not run (the model calls a function itself)',
          }),
        )
        .nullable()
        .optional(),
      defer_loading: z
        .literal(false, {
          error: 'deferred loading works with tool search, a built-in tool forkpool does not run: leave "defer_loading" out',
        })
        .optional(),
      output_schema: JsonObjectSchema.nullable().optional(),
    },
    {
      function: `is Chat Completions' nesting: a Responses function tool is flat (${TOOL_SHAPE})`,
      input_schema: 'is Anthropic\'s: a Responses function tool\'s JSON Schema goes in "parameters"',
      inputSchema: 'is the AI SDK\'s: a Responses function tool\'s JSON Schema goes in "parameters"',
    },
  );

  const ToolSchema = byKind(
    'type',
    'a tool',
    { function: FunctionToolSchema },
    {
      ...Object.fromEntries(BUILT_IN_TOOL_TYPES.map((type) => [type, builtInTool(type)])),
      custom: CUSTOM_TOOLS_REFUSED,
      namespace: `namespace tools are not supported: declare each function as a tool of its own (${TOOL_SHAPE})`,
    },
  );

  const TOOL_CHOICES = ['none', 'auto', 'required'] as const;

  const TOOL_CHOICE = '"none", "auto", "required" or a tool choice object ({ "type": "function", "name" })';

  const ToolChoiceSchema = byJsonType(TOOL_CHOICE, {
    string: z.enum(TOOL_CHOICES, { error: (iss) => `must be ${TOOL_CHOICE}, not ${kindOf(iss.input)}` }),
    object: byKind(
      'type',
      'a tool choice',
      {
        function: strict('a function tool choice', {
          type: z.literal('function'),
          name: z.string({
            error: (iss) =>
              iss.input === undefined
                ? 'is required (a Responses tool choice names the function itself: { "type": "function", "name" })'
                : `must be a string, not ${describeValue(iss.input)}`,
          }),
        }),
        allowed_tools: strict('an allowed_tools choice', {
          type: z.literal('allowed_tools'),
          mode: z.enum(['auto', 'required'], { error: 'must be "auto" or "required"' }),
          tools: z.array(JsonObjectSchema, { error: 'must be an array of tool definitions' }),
        }),
      },
      {
        ...Object.fromEntries(BUILT_IN_TOOL_TYPES.map((type) => [type, builtInTool(type)])),
        custom: CUSTOM_TOOLS_REFUSED,
      },
    ),
  });

  // ── Settings ────────────────────────────────────────────────────────────────────────────────────

  /** OpenAI's reasoning efforts (the SDK's Shared.ReasoningEffort), null aside. */
  const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
  const SUMMARIES = ['auto', 'concise', 'detailed'] as const;
  const REASONING_CONTEXTS = ['auto', 'current_turn', 'all_turns'] as const;

  const ReasoningConfigSchema = strict(
    '"reasoning"',
    {
      effort: z
        .enum(REASONING_EFFORTS, { error: `must be ${choices(REASONING_EFFORTS)} (or null)` })
        .nullable()
        .optional(),
      summary: z
        .enum(SUMMARIES, { error: `must be ${choices(SUMMARIES)} (or null)` })
        .nullable()
        .optional(),
      context: z
        .enum(REASONING_CONTEXTS, { error: `must be ${choices(REASONING_CONTEXTS)} (or null)` })
        .nullable()
        .optional(),
      mode: z.string().optional(),
    },
    { generate_summary: 'is deprecated: use "summary"' },
  );

  const SCHEMA_FLAT = 'a Responses "json_schema" format holds "name", "schema" and "strict" itself';

  const TextConfigSchema = strict('"text"', {
    format: byKind('type', 'a text format', {
      text: strict('a "text" format', { type: z.literal('text') }),
      json_object: strict('a "json_object" format', { type: z.literal('json_object') }),
      json_schema: strict(
        'a "json_schema" format',
        {
          type: z.literal('json_schema'),
          name: z
            .string({
              error: (iss) =>
                iss.input === undefined ? `is required (${SCHEMA_FLAT})` : `must be a string, not ${describeValue(iss.input)}`,
            })
            .min(1, { error: 'a schema name must not be empty' }),
          schema: JsonObjectSchema,
          description: z.string().optional(),
          strict: z.boolean().nullable().optional(),
        },
        { json_schema: `is Chat Completions' nesting: ${SCHEMA_FLAT}` },
      ),
    }).optional(),
    verbosity: z.enum(['low', 'medium', 'high'], { error: 'must be "low", "medium" or "high" (or null)' }).nullable().optional(),
  });

  const INCLUDABLE = [
    'file_search_call.results',
    'web_search_call.results',
    'web_search_call.action.sources',
    'message.input_image.image_url',
    'computer_call_output.output.image_url',
    'code_interpreter_call.outputs',
    'reasoning.encrypted_content',
    'message.output_text.logprobs',
  ] as const;

  const CACHE_MODES = ['implicit', 'explicit'] as const;
  const RETENTIONS = ['in_memory', '24h'] as const;
  const SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority'] as const;
  const MODERATION_MODES = ['score', 'block'] as const;

  const moderationPolicy = (what: string) =>
    strict(what, { mode: z.enum(MODERATION_MODES, { error: `must be ${choices(MODERATION_MODES)}` }) })
      .nullable()
      .optional();

  const ModerationSchema = strict('"moderation"', {
    model: nonEmpty('a moderation model'),
    policy: strict('a moderation policy', { input: moderationPolicy('an input policy'), output: moderationPolicy('an output policy') })
      .nullable()
      .optional(),
  });

  const MetadataSchema = z
    .record(
      z.string(),
      z.string({ error: 'a metadata value must be a string' }).max(512, { error: 'a metadata value must be at most 512 characters' }),
      {
        error: 'must be a JSON object of strings (or null)',
      },
    )
    .check((ctx) => {
      const keys = Object.keys(ctx.value);
      if (keys.length > 16)
        ctx.issues.push({ code: 'custom', input: ctx.value, message: `holds ${keys.length} keys: OpenAI takes at most 16` });
      const long = keys.find((key) => key.length > 64);
      if (long !== undefined)
        ctx.issues.push({ code: 'custom', input: long, path: [long], message: 'a metadata key must be at most 64 characters' });
    });

  const numberRule = (iss: { input?: unknown }) =>
    iss.input === undefined ? 'is required' : `must be a number, not ${describeValue(iss.input)}`;
  const setting = z.number({ error: numberRule }).nullable().optional();
  const integerRule = (range: string) => ({
    error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be an integer ${range}`),
  });

  // ── The session ─────────────────────────────────────────────────────────────────────────────────

  /** Every field an openai-responses session takes. */
  const OPENAI_RESPONSES_SESSION_KEYS: readonly string[] = [
    'format',
    'model',
    'instructions',
    'input',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
    'temperature',
    'top_p',
    'top_logprobs',
    'max_output_tokens',
    'reasoning',
    'include',
    'text',
    'truncation',
    'prompt_cache_key',
    'prompt_cache_options',
    'prompt_cache_retention',
    'metadata',
    'user',
    'safety_identifier',
    'service_tier',
    'store',
    'moderation',
  ];

  const WHOLE_CONVERSATION = 'a session is the whole conversation, sent as it is';
  const CHAT_SETTING = 'is a Chat Completions setting the Responses API does not take; leave it out';

  /** Common mistakes get a hint; anything else gets the list of fields a session takes. */
  const OPENAI_RESPONSES_SESSION_HINTS: Record<string, string> = {
    messages: 'is Chat Completions\': a Responses session\'s conversation goes in "input" (a string, or an array of items)',
    max_tokens: 'is Chat Completions\': the Responses API calls it "max_output_tokens"',
    max_completion_tokens: 'is Chat Completions\': the Responses API calls it "max_output_tokens"',
    response_format: 'is Chat Completions\': the Responses API takes it as "text": { "format": … }',
    reasoning_effort: 'is Chat Completions\': the Responses API takes it as "reasoning": { "effort" }',
    functions:
      'is Chat Completions\' (deprecated): declare function tools in "tools" ({ "type": "function", "name", "parameters", "strict" })',
    seed: CHAT_SETTING,
    stop: CHAT_SETTING,
    n: CHAT_SETTING,
    frequency_penalty: CHAT_SETTING,
    presence_penalty: CHAT_SETTING,
    system: 'is not a Responses session field: the system prompt goes in "instructions" (or a "system" or "developer" message in "input")',
    history: 'is not a Responses session field: the conversation goes in "input"',
    contents: 'is not a Responses session field: the conversation goes in "input"',
    stream: 'is not a session field: forkpool decides how each request is sent; leave "stream" out',
    stream_options: 'is not a session field: forkpool decides how each request is sent; leave "stream_options" out',
    previous_response_id: `is not part of a session: ${WHOLE_CONVERSATION} (a fork cannot send what a stored response holds); put its items in "input"`,
    conversation: `is not part of a session: ${WHOLE_CONVERSATION} (items an OpenAI conversation keeps are not in it, and each fork's response would be added to it); put its items in "input"`,
    prompt: `is not part of a session: ${WHOLE_CONVERSATION}, and a stored prompt template lives at OpenAI; put its text in "instructions"`,
    background: "is not part of a session: forkpool runs each fork's request and reads its answer itself (a background response is polled)",
    context_management:
      "is not part of a session: compaction would rewrite a fork's conversation mid-request, and a fork sends the session's items as they are",
  };

  const UNANSWERED = (id: string) =>
    `the function call "${id}" is not answered: a function_call_output with its call_id must follow it (a call may stay unanswered only at the end of "input", with nothing but function calls, their outputs and reasoning items after it)`;
  const REASONING_ALONE =
    'a reasoning item must be followed by what the model produced after it, an assistant message or a function_call (other reasoning items may stand between): the API refuses a reasoning item "provided without its required following item"';

  const InputSchema = byJsonType('a string or an array of input items', {
    string: z.string().min(1, { error: 'must not be empty' }),
    array: z.array(ItemSchema).min(1, { error: 'must hold at least one item' }),
  });

  const OpenAIResponsesSessionSchema = z
    .strictObject(
      {
        format: z.literal('openai-responses', {
          error: (iss) =>
            iss.input === undefined
              ? 'is required ("openai-responses" for a session in the Responses API\'s shape)'
              : 'must be "openai-responses"',
        }),
        model: nonEmpty('the model name'),
        instructions: z.string().nullable().optional(),
        input: z.custom<z.input<typeof InputSchema>>().check((ctx) => {
          if (ctx.value !== undefined) pushIssuesOf(InputSchema, ctx.value, ctx.issues);
          else {
            ctx.issues.push({
              code: 'custom',
              input: undefined,
              message:
                'is required (the conversation: a string, or an array of input items; Chat Completions\' "messages" are "input" here)',
            });
          }
        }),
        tools: z.array(ToolSchema, { error: `must be an array of tools (${TOOL_SHAPE})` }).optional(),
        tool_choice: ToolChoiceSchema.optional(),
        parallel_tool_calls: z.boolean().nullable().optional(),
        temperature: setting,
        top_p: setting,
        top_logprobs: z
          .number(integerRule('from 0 to 20'))
          .int(integerRule('from 0 to 20'))
          .min(0, integerRule('from 0 to 20'))
          .max(20, integerRule('from 0 to 20'))
          .nullable()
          .optional(),
        max_output_tokens: z
          .number(integerRule('of at least 16'))
          .int(integerRule('of at least 16'))
          .min(16, { error: 'must be an integer of at least 16 (the API refuses fewer output tokens)' })
          .nullable()
          .optional(),
        reasoning: ReasoningConfigSchema.nullable().optional(),
        include: z
          .array(z.enum(INCLUDABLE, { error: (iss) => `must be ${choices(INCLUDABLE)}, not ${kindOf(iss.input)}` }), {
            error: 'must be an array of strings (or null)',
          })
          .nullable()
          .optional(),
        text: TextConfigSchema.optional(),
        truncation: z.enum(['auto', 'disabled'], { error: 'must be "auto" or "disabled" (or null)' }).nullable().optional(),
        prompt_cache_key: z.string().nullable().optional(),
        prompt_cache_options: strict('"prompt_cache_options"', {
          mode: z.enum(CACHE_MODES, { error: `must be ${choices(CACHE_MODES)}` }).optional(),
          ttl: z.literal('30m', { error: 'must be "30m" (the only prompt cache ttl OpenAI takes today)' }).optional(),
        }).optional(),
        prompt_cache_retention: z
          .enum(RETENTIONS, { error: `must be ${choices(RETENTIONS)} (or null)` })
          .nullable()
          .optional(),
        metadata: MetadataSchema.nullable().optional(),
        user: z.string().optional(),
        safety_identifier: z.string().max(64, { error: 'must be at most 64 characters' }).nullable().optional(),
        service_tier: z
          .enum(SERVICE_TIERS, { error: `must be ${choices(SERVICE_TIERS)} (or null)` })
          .nullable()
          .optional(),
        store: z.boolean().nullable().optional(),
        moderation: ModerationSchema.nullable().optional(),
      },
      strictFields('an openai-responses session', OPENAI_RESPONSES_SESSION_KEYS, OPENAI_RESPONSES_SESSION_HINTS),
    )
    .check((ctx) => {
      const session = ctx.value;
      const rule = (path: Path, message: string, input: unknown = undefined) => ctx.issues.push({ code: 'custom', input, path, message });

      // The API rejects a request that declares one function twice; say so before any fork runs.
      const declared = new Set<string>();
      session.tools?.forEach((tool, t) => {
        if (declared.has(tool.name)) rule(['tools', t, 'name'], `the function "${tool.name}" is declared twice`, tool.name);
        declared.add(tool.name);
      });
      const choice = session.tool_choice;
      if (typeof choice === 'object' && choice.type === 'function' && !declared.has(choice.name)) {
        rule(['tool_choice', 'name'], `names the function "${choice.name}", which "tools" does not declare`, choice.name);
      }

      if (typeof session.input === 'string') return;
      const items = session.input;
      const typeOf = (item: ResponsesInputItem | undefined): string | undefined =>
        item === undefined ? undefined : 'role' in item ? 'message' : (item.type ?? 'item_reference');
      const isModelItem = (item: ResponsesInputItem | undefined) =>
        typeOf(item) === 'function_call' || (item !== undefined && 'role' in item && item.role === 'assistant');

      // Where the end of "input" starts: nothing but calls, their outputs and reasoning from there on.
      let tail = items.length;
      while (tail > 0 && ['function_call', 'function_call_output', 'reasoning'].includes(typeOf(items[tail - 1]) ?? '')) tail--;
      const outputsAt = new Map<string, number[]>();
      items.forEach((item, i) => {
        if (item.type === 'function_call_output') outputsAt.set(item.call_id, [...(outputsAt.get(item.call_id) ?? []), i]);
      });

      const idAt = new Map<string, number>();
      const callAt = new Map<string, number>();
      const answeredAt = new Map<string, number>();
      // An item_reference or a compaction item may stand for calls not in "input".
      let opaque = false;
      items.forEach((item, i) => {
        const kind = typeOf(item);
        if (kind === 'item_reference' || kind === 'compaction') opaque = true;
        const id = kind !== 'item_reference' && 'id' in item ? item.id : undefined;
        if (typeof id === 'string') {
          const earlier = idAt.get(id);
          if (earlier !== undefined)
            rule(['input', i, 'id'], `the item id "${id}" is already used by input[${earlier}]: the API refuses duplicate items`, id);
          else idAt.set(id, i);
        }
        if (item.type === 'function_call') {
          const earlier = callAt.get(item.call_id);
          if (earlier !== undefined) {
            rule(
              ['input', i, 'call_id'],
              `the call_id "${item.call_id}" is already used by input[${earlier}]; call_ids must be unique in a session`,
              item.call_id,
            );
          } else callAt.set(item.call_id, i);
          const answered = (outputsAt.get(item.call_id) ?? []).some((at) => at > i);
          if (!answered && i < tail) rule(['input', i, 'call_id'], UNANSWERED(item.call_id), item.call_id);
        } else if (item.type === 'function_call_output') {
          const id = item.call_id;
          const done = answeredAt.get(id);
          const call = callAt.get(id);
          const later = items.findIndex((other, j) => j > i && other.type === 'function_call' && other.call_id === id);
          const problem =
            done !== undefined
              ? `the function call "${id}" is already answered by input[${done}]; a function call is answered once`
              : call !== undefined || opaque
                ? undefined
                : later >= 0
                  ? `answers the function call "${id}" of input[${later}], which comes after it: an output follows its call`
                  : `"${id}" answers no function_call: a function_call_output answers a function_call before it in "input"`;
          if (problem) rule(['input', i, 'call_id'], problem, id);
          answeredAt.set(id, i);
        } else if (kind === 'reasoning') {
          let next = i + 1;
          while (typeOf(items[next]) === 'reasoning') next++;
          if (!isModelItem(items[next]) && typeOf(items[next]) !== 'item_reference')
            rule(['input', i, 'type'], REASONING_ALONE, 'reasoning');
        }
      });
    });

  return {
    easyMessage,
    statusMessage,
    EasyAssistantMessageSchema,
    FunctionToolSchema,
    ItemReferenceSchema,
    ItemSchema,
    OpenAIResponsesSessionSchema,
    OutputMessageSchema,
    inputParts,
  };
}

type Built = ReturnType<typeof build>;
let built: Built | undefined;

/** A session in OpenAI Responses' shape (built on first use). */
export function openAIResponsesSessionSchema(): Built['OpenAIResponsesSessionSchema'] {
  built ??= build();
  return built.OpenAIResponsesSessionSchema;
}

export type OpenAIResponsesSession = z.input<Built['OpenAIResponsesSessionSchema']>;
export type ResponsesInputItem = z.input<Built['ItemSchema']>;
export type ResponsesFunctionTool = z.input<Built['FunctionToolSchema']>;

// ── Compile-time checks against the openai SDK's own types ──────────────────────────────────────
// Type-only: `tsc` fails here when the schema and the SDK's Responses types drift apart.

/** Every item a session holds is an item `responses.create` takes, and the session (minus format) is its body. */
type _ItemsAreSdkItems = Assert<Assignable<ResponsesInputItem, ResponseInputItem>>;
type _SessionIsACreateBody = Assert<Assignable<Omit<OpenAIResponsesSession, 'format'>, ResponseCreateParamsNonStreaming>>;
type _ToolsAreFunctionTools = Assert<Assignable<ResponsesFunctionTool, FunctionTool>>;

/**
 * And field for field: TypeScript lets a type with fewer optional fields stand for one with more,
 * so each item kind, message shape and part kind names the very fields the SDK's type names.
 */
type ItemOfType<T extends string> = Extract<ResponsesInputItem, { type: T }>;
type PartOf<T, K extends string> = T extends { type: K } ? T : never;
type MessagePart = z.input<Built['inputParts']>[number];
type OutputPart = z.input<Built['OutputMessageSchema']>['content'][number];
type FunctionOutputPart = Exclude<ItemOfType<'function_call_output'>['output'], string>[number];
type ReasoningPart<K extends 'summary' | 'content'> = NonNullable<ItemOfType<'reasoning'>[K]>[number];

type _MessageFieldsMatch = Assert<
  | SameKeys<z.input<ReturnType<Built['easyMessage']>>, EasyInputMessage>
  | SameKeys<z.input<Built['EasyAssistantMessageSchema']>, EasyInputMessage>
  | SameKeys<z.input<ReturnType<Built['statusMessage']>>, ResponseInputItem.Message>
  | SameKeys<z.input<Built['OutputMessageSchema']>, ResponseOutputMessage>
>;
type _ItemFieldsMatch = Assert<
  | SameKeys<ItemOfType<'function_call'>, ResponseFunctionToolCall>
  | SameKeys<ItemOfType<'function_call_output'>, ResponseInputItem.FunctionCallOutput>
  | SameKeys<ItemOfType<'reasoning'>, ResponseReasoningItem>
  | SameKeys<z.input<Built['ItemReferenceSchema']>, ResponseInputItem.ItemReference>
  | SameKeys<ItemOfType<'compaction'>, ResponseCompactionItemParam>
>;
type _PartFieldsMatch = Assert<
  | SameKeys<PartOf<MessagePart, 'input_text'>, ResponseInputText>
  | SameKeys<PartOf<MessagePart, 'input_image'>, ResponseInputImage>
  | SameKeys<PartOf<MessagePart, 'input_file'>, ResponseInputFile>
  | SameKeys<PartOf<FunctionOutputPart, 'input_text'>, ResponseInputTextContent>
  | SameKeys<PartOf<FunctionOutputPart, 'input_image'>, ResponseInputImageContent>
  | SameKeys<PartOf<FunctionOutputPart, 'input_file'>, ResponseInputFileContent>
  | SameKeys<PartOf<OutputPart, 'output_text'>, ResponseOutputText>
  | SameKeys<PartOf<OutputPart, 'refusal'>, ResponseOutputRefusal>
  | SameKeys<ReasoningPart<'summary'>, ResponseReasoningItem.Summary>
  | SameKeys<ReasoningPart<'content'>, ResponseReasoningItem.Content>
  | SameKeys<ResponsesFunctionTool, FunctionTool>
>;

/**
 * Validates an already-parsed openai-responses session object (from a file or from code) and
 * returns that same object: a fork sends the parent's objects in the parent's own key order (byte
 * fidelity), so zod's rebuilt copy is thrown away.
 */
export function parseOpenAIResponsesSession(json: unknown, source?: string): OpenAIResponsesSession {
  return checkSessionObject<OpenAIResponsesSession>(
    openAIResponsesSessionSchema(),
    json,
    '{ "format": "openai-responses", "model", "input", … }',
    source,
  );
}
