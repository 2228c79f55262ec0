// Internal: parseOpenAIChatSession (src/shapes/openai-chat/schema.ts) and openAIChatSessionSchema(), its zod schema: parseSession is its public face; everything else comes through forkpool.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseOpenAIChatSession } from '../src/session/index.js';
import type {
  ChatAssistantMessage,
  ChatContentPart,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatToolMessage,
  OpenAIChatSession,
} from '../src/index.js';
import { openAIChatSessionSchema } from '../src/session/index.js';
import { errorOf } from './support/input-error.js';
import { typeErrorsOf } from './support/type-check.js';

/** A session of one user message followed by `messages`, with `extra` top-level fields. */
function session(messages: unknown[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: 'openai-chat', model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }, ...messages], ...extra };
}

const call = (id: string, name = 'read_file', args = '{"path":"a"}') => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

const tools = [
  { type: 'function', function: { name: 'read_file', description: 'Reads a file', parameters: { type: 'object' }, strict: true } },
  { type: 'function', function: { name: 'grep' } },
];

describe('parseOpenAIChatSession: valid sessions come back as the very object passed', () => {
  it.each<[string, unknown[]]>([
    ['a system message (string)', [{ role: 'system', content: 'Be brief.' }]],
    ['a system message (text parts, name)', [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }], name: 'ops' }]],
    ['a developer message (string)', [{ role: 'developer', content: 'Use tools.' }]],
    [
      'a developer message (text parts)',
      [
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    ],
    ['a user message (name)', [{ role: 'user', content: 'again', name: 'ann' }]],
    [
      'a user message with every part type',
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
            { type: 'file', file: { file_id: 'file-123' } },
            { type: 'file', file: { file_data: 'JVBERi0=', filename: 'a.pdf' } },
          ],
        },
      ],
    ],
    ['an assistant message (string, name)', [{ role: 'assistant', content: 'hello', name: 'bot' }]],
    [
      'an assistant message (text and refusal parts)',
      [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'part' },
            { type: 'refusal', refusal: 'no' },
          ],
        },
      ],
    ],
    ['an assistant refusal (content null)', [{ role: 'assistant', content: null, refusal: 'I cannot help with that.' }]],
    ['an assistant audio answer (content null)', [{ role: 'assistant', content: null, audio: { id: 'audio_1' } }]],
    [
      'tool calls answered by tool messages (string and text parts)',
      [
        { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2', 'grep', '{"q":"x"}')] },
        { role: 'tool', tool_call_id: 'c2', content: 'match' },
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'file body' }] },
        { role: 'assistant', content: 'done' },
      ],
    ],
    ['a call still in flight at the end', [{ role: 'assistant', content: 'Reading.', tool_calls: [call('c1')] }]],
    [
      'arguments that are not JSON (kept as the model wrote them)',
      [{ role: 'assistant', tool_calls: [call('c1', 'read_file', '{"path": "a"')] }],
    ],
    ['empty arguments', [{ role: 'assistant', tool_calls: [call('c1', 'read_file', '')] }]],
  ])('%s', (_name, messages) => {
    const input = session(messages);
    const before = JSON.stringify(input);
    expect(parseOpenAIChatSession(input, 's.json')).toBe(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('accepts every sampling and tool field, in the session’s own key order', () => {
    const input = session([], {
      tools,
      tool_choice: { type: 'function', function: { name: 'grep' } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 1,
      max_tokens: 100,
      max_completion_tokens: 200,
      reasoning_effort: 'xhigh',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', description: 'd', schema: { type: 'object', properties: {} }, strict: true },
      },
      seed: -7,
      stop: ['\n\n', 'END'],
    });
    const parsed = parseOpenAIChatSession(input);
    expect(parsed).toBe(input);
    expect(Object.keys(parsed)).toEqual(Object.keys(input));
  });

  it.each<[string, Record<string, unknown>]>([
    [
      'nullable sampling fields as null',
      { temperature: null, top_p: null, max_tokens: null, max_completion_tokens: null, seed: null, stop: null, reasoning_effort: null },
    ],
    ['stop as a string', { stop: 'END' }],
    ['tool_choice "none"', { tools, tool_choice: 'none' }],
    ['tool_choice "required"', { tools, tool_choice: 'required' }],
    [
      'tool_choice allowed_tools',
      {
        tools,
        tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'grep' } }] } },
      },
    ],
    ['response_format text', { response_format: { type: 'text' } }],
    ['response_format json_object', { response_format: { type: 'json_object' } }],
    ['each reasoning effort', { reasoning_effort: 'minimal' }],
    ['reasoning effort "none"', { reasoning_effort: 'none' }],
  ])('accepts %s', (_name, extra) => {
    const input = session([], extra);
    expect(parseOpenAIChatSession(input)).toBe(input);
  });

  it('accepts the body the openai SDK sends for create() (minus stream), with "format" added', async () => {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'developer', content: 'You are a careful researcher.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Find the config.' },
            { type: 'image_url', image_url: { url: 'https://example.com/x.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'read_file', arguments: '{"path":"config.json"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_abc', content: '{"debug":true}' },
        { role: 'assistant', content: 'The config enables debug.' },
        { role: 'user', content: 'Thanks. Now summarize.' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Reads a file from the workspace.',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
            strict: true,
          },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 512,
      reasoning_effort: 'low',
      response_format: { type: 'text' },
      seed: 42,
      stop: ['<END>'],
    };
    let sent: string | undefined;
    const client = new OpenAI({
      apiKey: 'test-key',
      baseURL: 'http://127.0.0.1:9/v1',
      maxRetries: 0,
      fetch: async (_url, init) => {
        sent = String(init?.body);
        const completion = {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: params.model,
          choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'ok', refusal: null } }],
        };
        return new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.chat.completions.create(params);
    expect(sent).toBeDefined();
    const body = JSON.parse(sent ?? '') as Record<string, unknown>;
    expect(body).toEqual(params);
    const input = { format: 'openai-chat', ...body };
    expect(parseOpenAIChatSession(input, 'body.json')).toBe(input);
  });

  it('is validation only: the schema’s own output is a rebuilt copy, which is why the input is returned', () => {
    const input = session([
      { role: 'assistant', tool_calls: [{ function: { arguments: '{}', name: 'grep' }, type: 'function', id: 'c1' }] },
    ]);
    const rebuilt = openAIChatSessionSchema().parse(input);
    expect(rebuilt).not.toBe(input);
    const callOf = (s: unknown) => (s as { messages: { tool_calls?: unknown[] }[] }).messages[1]?.tool_calls?.[0];
    expect(Object.keys(callOf(input) as object)).toEqual(['function', 'type', 'id']);
    expect(Object.keys(callOf(rebuilt) as object)).toEqual(['id', 'type', 'function']);
    expect(Object.keys(callOf(parseOpenAIChatSession(input)) as object)).toEqual(['function', 'type', 'id']);
  });
});

describe('parseOpenAIChatSession: each rule fails with a located InputError', () => {
  it.each<[string, unknown, string]>([
    // the session
    ['not an object', [], 's.json: a session must be a JSON object ({ "format": "openai-chat", "model", "messages", … })'],
    [
      'no format',
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      's.json: format: is required ("openai-chat" for a session in Chat Completions\' shape)',
    ],
    ['another format', session([], { format: 'anthropic-messages' }), 's.json: format: must be "openai-chat"'],
    ['no model', { format: 'openai-chat', messages: [{ role: 'user', content: 'x' }] }, 's.json: model: is required'],
    ['an empty model', session([], { model: '' }), 's.json: model: the model name must not be empty'],
    ['no messages', { format: 'openai-chat', model: 'm' }, 's.json: messages: must be an array of messages ({ "role", "content" })'],
    ['empty messages', session([], { messages: [] }), 's.json: messages: must hold at least one message'],
    [
      'an unknown top-level field',
      session([], { frequency_penalty: 0.5 }),
      's.json: frequency_penalty: is not a field of an openai-chat session (allowed: format, model, messages, tools, tool_choice, parallel_tool_calls, temperature, top_p, max_tokens, max_completion_tokens, reasoning_effort, response_format, seed, stop, prompt_cache_options, prompt_cache_retention)',
    ],
    [
      'two unknown top-level fields',
      session([], { logprobs: true, user: 'u' }),
      's.json: "logprobs", "user" are not fields of an openai-chat session (allowed: format, model, messages, tools, tool_choice, parallel_tool_calls, temperature, top_p, max_tokens, max_completion_tokens, reasoning_effort, response_format, seed, stop, prompt_cache_options, prompt_cache_retention)',
    ],
    [
      'a field named like an Object.prototype member',
      session([], { toString: 'x' }),
      's.json: toString: is not a field of an openai-chat session (allowed: format, model, messages, tools, tool_choice, parallel_tool_calls, temperature, top_p, max_tokens, max_completion_tokens, reasoning_effort, response_format, seed, stop, prompt_cache_options, prompt_cache_retention)',
    ],
    [
      'stream',
      session([], { stream: true }),
      's.json: stream: is not a session field: forkpool decides how each request is sent; leave "stream" out',
    ],
    [
      'a Gemini history',
      session([], { history: [] }),
      's.json: history: is not an openai-chat session field: the conversation goes in "messages"',
    ],
    [
      'deprecated functions',
      session([], { functions: [] }),
      's.json: functions: the deprecated "functions" is not accepted: declare them in "tools" ({ "type": "function", "function": … })',
    ],

    // messages and roles
    ['a message that is not an object', session(['hi']), 's.json: messages[1]: a message must be a JSON object, not a string'],
    [
      'a message without role',
      session([{ content: 'x' }]),
      's.json: messages[1].role: is required (allowed: "system", "developer", "user", "assistant" or "tool")',
    ],
    [
      'an unknown role',
      session([{ role: 'model', content: 'x' }]),
      's.json: messages[1].role: must be "system", "developer", "user", "assistant" or "tool", not "model"',
    ],
    [
      'the deprecated function role',
      session([{ role: 'function', name: 'f', content: 'x' }]),
      's.json: messages[1].role: the deprecated "function" role is not accepted: send a function\'s result as a "tool" message answering an assistant\'s "tool_calls" entry',
    ],
    [
      'an unknown user field',
      session([{ role: 'user', content: 'x', tool_call_id: 'c' }]),
      's.json: messages[1].tool_call_id: is not a field of a "user" message (allowed: role, content, name)',
    ],
    [
      'an unknown system field',
      session([{ role: 'system', content: 'x', cache_control: {} }]),
      's.json: messages[1].cache_control: is not a field of a "system" message (allowed: role, content, name)',
    ],
    [
      'an unknown assistant field',
      session([{ role: 'assistant', content: 'x', reasoning_content: 'y' }]),
      's.json: messages[1].reasoning_content: is not a field of an "assistant" message (allowed: role, content, refusal, name, audio, tool_calls)',
    ],
    [
      'a tool message with a name',
      session([{ role: 'tool', tool_call_id: 'c', content: 'x', name: 'f' }]),
      's.json: messages[1].name: is not a field of a "tool" message (allowed: role, content, tool_call_id)',
    ],
    [
      'the deprecated function_call',
      session([{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }]),
      's.json: messages[1].function_call: the deprecated "function_call" is not accepted: use "tool_calls" (and "tool" messages for the results)',
    ],
    [
      'Gemini parts beside content',
      session([{ role: 'user', content: 'x', parts: [] }]),
      's.json: messages[1].parts: is not a Chat Completions message field: use "content" (a string or an array of content parts)',
    ],
    ['a user message without content', session([{ role: 'user' }]), 's.json: messages[1].content: is required'],
    ['a developer message without content', session([{ role: 'developer' }]), 's.json: messages[1].content: is required'],
    [
      'null user content',
      session([{ role: 'user', content: null }]),
      's.json: messages[1].content: must be a string or an array of content parts, not null',
    ],
    [
      'numeric system content',
      session([{ role: 'system', content: 3 }]),
      's.json: messages[1].content: must be a string or an array of text parts, not the number 3',
    ],
    [
      'an empty content array',
      session([{ role: 'user', content: [] }]),
      's.json: messages[1].content: a content array must hold at least one part (or use a string)',
    ],
    ['a numeric name', session([{ role: 'user', content: 'x', name: 7 }]), 's.json: messages[1].name: must be a string, not the number 7'],
    [
      'an assistant message with nothing',
      session([{ role: 'assistant', content: null }]),
      's.json: messages[1]: an assistant message needs "content" or "tool_calls" (or a "refusal", or "audio")',
    ],
    ['an assistant audio without id', session([{ role: 'assistant', audio: {} }]), 's.json: messages[1].audio.id: is required'],

    // content parts
    [
      'a part without type',
      session([{ role: 'user', content: [{ text: 'x' }] }]),
      's.json: messages[1].content[0].type: is required (allowed: "text", "image_url", "input_audio" or "file")',
    ],
    [
      'an unknown user part type',
      session([{ role: 'user', content: [{ type: 'video_url', video_url: {} }] }]),
      's.json: messages[1].content[0].type: must be "text", "image_url", "input_audio" or "file", not "video_url"',
    ],
    [
      'an image in a system message',
      session([{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'u' } }] }]),
      's.json: messages[1].content[0].type: must be "text", not "image_url"',
    ],
    [
      'an image in a tool message',
      session([
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: 'u' } }] },
      ]),
      's.json: messages[2].content[0].type: must be "text", not "image_url"',
    ],
    [
      'a refusal part from the user',
      session([{ role: 'user', content: [{ type: 'refusal', refusal: 'no' }] }]),
      's.json: messages[1].content[0].type: must be "text", "image_url", "input_audio" or "file", not "refusal"',
    ],
    [
      'an image part in an assistant message',
      session([{ role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'u' } }] }]),
      's.json: messages[1].content[0].type: must be "text" or "refusal", not "image_url"',
    ],
    [
      'a part that is not an object',
      session([{ role: 'user', content: ['x'] }]),
      's.json: messages[1].content[0]: a content part must be a JSON object, not a string',
    ],
    [
      'a text part without text',
      session([{ role: 'user', content: [{ type: 'text' }] }]),
      's.json: messages[1].content[0].text: is required',
    ],
    [
      'an unknown text part field',
      session([{ role: 'developer', content: [{ type: 'text', text: 'x', cache: {} }] }]),
      's.json: messages[1].content[0].cache: is not a field of a text part (allowed: type, text, cache_control, prompt_cache_breakpoint)',
    ],
    [
      'a cache_control marker of another type',
      session([{ role: 'developer', content: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }] }]),
      's.json: messages[1].content[0].cache_control.type: must be "ephemeral" (DashScope\'s only cache_control type)',
    ],
    [
      'an image without url',
      session([{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }]),
      's.json: messages[1].content[0].image_url.url: is required',
    ],
    [
      'an unknown image detail',
      session([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u', detail: 'ultra' } }] }]),
      's.json: messages[1].content[0].image_url.detail: must be one of "auto", "low", "high"',
    ],
    [
      'an unknown audio format',
      session([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'ogg' } }] }]),
      's.json: messages[1].content[0].input_audio.format: must be one of "wav", "mp3"',
    ],
    [
      'a file without data or id',
      session([{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }]),
      's.json: messages[1].content[0].file: a file part needs "file_data" or "file_id"',
    ],
    [
      'an unknown file field',
      session([{ role: 'user', content: [{ type: 'file', file: { file_id: 'f', url: 'u' } }] }]),
      's.json: messages[1].content[0].file.url: is not a field of "file" (allowed: file_data, file_id, filename)',
    ],

    // tool calls
    [
      'empty tool_calls',
      session([{ role: 'assistant', content: 'x', tool_calls: [] }]),
      's.json: messages[1].tool_calls: must hold at least one tool call (leave "tool_calls" out when there are none)',
    ],
    [
      'a tool call without id',
      session([{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }]),
      's.json: messages[1].tool_calls[0].id: is required',
    ],
    [
      'an empty tool call id',
      session([{ role: 'assistant', tool_calls: [call('')] }]),
      's.json: messages[1].tool_calls[0].id: a tool call id must not be empty',
    ],
    [
      'arguments as an object',
      session([{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { path: 'a' } } }] }]),
      's.json: messages[1].tool_calls[0].function.arguments: must be a string, not an object',
    ],
    [
      'a call without a function name',
      session([{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] }]),
      's.json: messages[1].tool_calls[0].function.name: is required',
    ],
    [
      'a streaming index left in a call',
      session([{ role: 'assistant', tool_calls: [{ ...call('c1'), index: 0 }] }]),
      's.json: messages[1].tool_calls[0].index: is not a field of a tool call (allowed: id, type, function)',
    ],
    [
      'a custom tool call',
      session([{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'sh', input: 'ls' } }] }]),
      's.json: messages[1].tool_calls[0].type: custom tool calls are not supported: forkpool executes tools with JSON arguments, so only "function" calls are accepted',
    ],
    [
      'a duplicate tool call id',
      session([
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'assistant', tool_calls: [call('c2'), call('c1')] },
      ]),
      's.json: messages[3].tool_calls[1].id: the tool call id "c1" is already used by messages[1].tool_calls[0]; tool call ids must be unique in a session',
    ],
    [
      'a tool message that answers no call',
      session([
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c9', content: 'x' },
      ]),
      's.json: messages[2].tool_call_id: "c9" answers no tool call: a tool message must answer a call in the "tool_calls" of the assistant message before it',
    ],
    [
      'a tool message before any call',
      session([
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'assistant', tool_calls: [call('c1')] },
      ]),
      's.json: messages[1].tool_call_id: "c1" answers no tool call: a tool message must answer a call in the "tool_calls" of the assistant message before it',
    ],
    [
      'a tool message separated from its call',
      session([
        { role: 'assistant', tool_calls: [call('c1'), call('c2')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'user', content: 'wait' },
        { role: 'tool', tool_call_id: 'c2', content: 'y' },
      ]),
      's.json: messages[4].tool_call_id: answers the call "c2" of messages[1], but a tool message must follow the assistant message whose call it answers (only other tool messages may stand between them)',
    ],
    [
      'a call answered twice',
      session([
        { role: 'assistant', tool_calls: [call('c1')] },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
        { role: 'tool', tool_call_id: 'c1', content: 'y' },
      ]),
      's.json: messages[3].tool_call_id: the tool call "c1" is already answered by messages[2]; a tool call is answered once',
    ],
    ['a tool message without tool_call_id', session([{ role: 'tool', content: 'x' }]), 's.json: messages[1].tool_call_id: is required'],

    // tools and tool_choice
    ['tools not an array', session([], { tools: {} }), 's.json: tools: must be an array of tools ({ "type": "function", "function" })'],
    [
      'a custom tool',
      session([], { tools: [{ type: 'custom', custom: { name: 'sh' } }] }),
      's.json: tools[0].type: custom tools (free-form text input) are not supported: forkpool executes tools with JSON arguments, so declare a "function" tool',
    ],
    ['a Gemini tool', session([], { tools: [{ functionDeclarations: [] }] }), 's.json: tools[0].type: is required (allowed: "function")'],
    [
      'a function without name',
      session([], { tools: [{ type: 'function', function: { description: 'd' } }] }),
      's.json: tools[0].function.name: is required',
    ],
    [
      'parameters not an object',
      session([], { tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }),
      's.json: tools[0].function.parameters: must be a JSON object',
    ],
    [
      'an unknown function field',
      session([], { tools: [{ type: 'function', function: { name: 'f', parametersJsonSchema: {} } }] }),
      's.json: tools[0].function.parametersJsonSchema: is not a field of a function declaration (allowed: name, description, parameters, strict)',
    ],
    [
      'a function declared twice',
      session([], { tools: [...tools, { type: 'function', function: { name: 'grep' } }] }),
      's.json: tools[2].function.name: the function "grep" is declared twice',
    ],
    [
      'an unknown tool_choice string',
      session([], { tools, tool_choice: 'any' }),
      's.json: tool_choice: must be "none", "auto", "required" or a tool choice object ({ "type": "function", "function": { "name" } })',
    ],
    [
      'tool_choice as a number',
      session([], { tool_choice: 1 }),
      's.json: tool_choice: must be "none", "auto", "required" or a tool choice object, not the number 1',
    ],
    [
      'tool_choice naming an undeclared function',
      session([], { tools, tool_choice: { type: 'function', function: { name: 'write_file' } } }),
      's.json: tool_choice.function.name: names the function "write_file", which "tools" does not declare',
    ],
    [
      'a custom tool_choice',
      session([], { tools, tool_choice: { type: 'custom', custom: { name: 'sh' } } }),
      's.json: tool_choice.type: custom tools (free-form text input) are not supported: forkpool executes tools with JSON arguments, so declare a "function" tool',
    ],
    [
      'allowed_tools with an unknown mode',
      session([], { tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'none', tools: [] } } }),
      's.json: tool_choice.allowed_tools.mode: must be one of "auto", "required"',
    ],
    [
      'parallel_tool_calls not a boolean',
      session([], { parallel_tool_calls: 'yes' }),
      's.json: parallel_tool_calls: must be true or false, not a string',
    ],

    // sampling fields
    ['temperature as a string', session([], { temperature: '0.2' }), 's.json: temperature: must be a finite number, not a string'],
    ['top_p as a boolean', session([], { top_p: true }), 's.json: top_p: must be a finite number, not a boolean'],
    [
      'NaN temperature',
      session([], { temperature: Number.NaN }),
      's.json: temperature: NaN is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
    [
      'infinite top_p',
      session([], { top_p: Number.POSITIVE_INFINITY }),
      's.json: top_p: Infinity is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
    ['max_tokens 0', session([], { max_tokens: 0 }), 's.json: max_tokens: must be a positive integer'],
    [
      'fractional max_completion_tokens',
      session([], { max_completion_tokens: 1.5 }),
      's.json: max_completion_tokens: must be a positive integer',
    ],
    ['a fractional seed', session([], { seed: 1.5 }), 's.json: seed: must be an integer'],
    ['a string seed', session([], { seed: '7' }), 's.json: seed: must be an integer'],
    [
      'an unknown reasoning effort',
      session([], { reasoning_effort: 'max' }),
      's.json: reasoning_effort: must be "none", "minimal", "low", "medium", "high" or "xhigh" (or null)',
    ],
    ['stop as a number', session([], { stop: 5 }), 's.json: stop: must be a string or an array of strings, not the number 5'],
    ['a number in stop', session([], { stop: ['a', 5] }), 's.json: stop[1]: must be a string, not the number 5'],
    [
      'an unknown response format',
      session([], { response_format: { type: 'xml' } }),
      's.json: response_format.type: must be "text", "json_object" or "json_schema", not "xml"',
    ],
    [
      'json_schema without name',
      session([], { response_format: { type: 'json_schema', json_schema: { schema: {} } } }),
      's.json: response_format.json_schema.name: is required',
    ],
    [
      'json_schema with a non-object schema',
      session([], { response_format: { type: 'json_schema', json_schema: { name: 'a', schema: [] } } }),
      's.json: response_format.json_schema.schema: must be a JSON object',
    ],
    [
      'an unknown json_schema field',
      session([], { response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {}, strictness: 1 } } }),
      's.json: response_format.json_schema.strictness: is not a field of "json_schema" (allowed: name, description, schema, strict)',
    ],
    [
      'a field on json_object',
      session([], { response_format: { type: 'json_object', schema: {} } }),
      's.json: response_format.schema: is not a field of a "json_object" response format (allowed: type)',
    ],

    // unsafe JSON, checked before the schema
    [
      'a __proto__ key',
      JSON.parse('{"format":"openai-chat","model":"m","messages":[{"role":"user","content":"x","__proto__":{}}]}'),
      's.json: messages[0].__proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    ],
  ])('%s', (_name, input, message) => {
    const err = errorOf(() => parseOpenAIChatSession(input, 's.json'));
    expect(err.message).toBe(message);
    expect(err.file).toBe('s.json');
  });

  it('reports the path and the rule separately, and no file when none is given', () => {
    const err = errorOf(() => parseOpenAIChatSession(session([{ role: 'assistant', tool_calls: [call('c1', '')] }])));
    expect(err.file).toBeUndefined();
    expect(err.path).toBe('messages[1].tool_calls[0].function.name');
    expect(err.rule).toBe('a function name must not be empty');
    expect(err.message).toBe('messages[1].tool_calls[0].function.name: a function name must not be empty');
  });
});

describe('types', () => {
  it('session messages are messages the openai SDK takes, and a session minus format is a create() body', () => {
    expectTypeOf<OpenAIChatSession['messages'][number]>().toExtend<ChatCompletionMessageParam>();
    expectTypeOf<ChatMessage>().toExtend<ChatCompletionMessageParam>();
    expectTypeOf<ChatAssistantMessage>().toExtend<OpenAI.Chat.ChatCompletionAssistantMessageParam>();
    expectTypeOf<ChatToolMessage>().toExtend<OpenAI.Chat.ChatCompletionToolMessageParam>();
    expectTypeOf<ChatToolCall>().toExtend<OpenAI.Chat.ChatCompletionMessageToolCall>();
    expectTypeOf<ChatTool>().toExtend<OpenAI.Chat.ChatCompletionTool>();
    expectTypeOf<ChatContentPart>().toExtend<OpenAI.Chat.ChatCompletionContentPart | OpenAI.Chat.ChatCompletionContentPartRefusal>();
    expectTypeOf<Omit<OpenAIChatSession, 'format'>>().toExtend<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf(parseOpenAIChatSession).returns.toEqualTypeOf<OpenAIChatSession>();
    // What is refused is not in the types either.
    expectTypeOf<OpenAI.Chat.ChatCompletionFunctionMessageParam>().not.toExtend<ChatMessage>();
    expectTypeOf<OpenAI.Chat.ChatCompletionMessageCustomToolCall>().not.toExtend<ChatToolCall>();
    expectTypeOf<OpenAI.Chat.ChatCompletionCustomTool>().not.toExtend<ChatTool>();
  });

  // vitest does not type-check test files (and `tsc -p .` covers src only), so the assertions
  // above are compiled here: a type that drifts from the SDK's fails this test.
  it('this file type-checks against the openai SDK', { timeout: 120_000 }, () => {
    expect(typeErrorsOf(fileURLToPath(import.meta.url))).toEqual([]);
  });
});
