// Internal: parseAnthropicMessagesSession and the block types AnthropicCacheControl, AnthropicToolResultBlock, AnthropicToolUseBlock (src/shapes/anthropic-messages/schema.ts): parseSession and AnthropicContentBlock are their public face; everything else comes through forkpool. Also anthropicMessagesSessionSchema(), its zod schema.
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ServerToolUseBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
  WebSearchTool20250305,
} from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicMessagesSession, AnthropicTool } from '../src/index.js';
import { anthropicMessagesSessionSchema } from '../src/session/index.js';
import {
  parseAnthropicMessagesSession,
  type AnthropicCacheControl,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from '../src/session/index.js';
import { errorOf } from './support/input-error.js';
import { typeErrorsOf } from './support/type-check.js';

/** A session of one user message followed by `messages`, with `extra` top-level fields. */
function session(messages: unknown[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'anthropic-messages',
    model: 'claude-opus-4-8',
    max_tokens: 4096,
    messages: [{ role: 'user', content: 'hi' }, ...messages],
    ...extra,
  };
}

const use = (id: string, name = 'read_file', input: unknown = { path: 'a' }) => ({ type: 'tool_use', id, name, input });
const result = (id: string, content: unknown = 'ok') => ({ type: 'tool_result', tool_use_id: id, content });
const text = (t: string, more: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...more });
const cache = (ttl?: '5m' | '1h') => (ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl });

const tools = [
  {
    name: 'read_file',
    description: 'Reads a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'grep', input_schema: { type: 'object' } },
];

const PNG = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
const THOUGHT = { type: 'thinking', thinking: 'The user wants a.', signature: 'EqQBCkgIBxABGAIiQL+sig==' };
const REDACTED = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' };

describe('parseAnthropicMessagesSession: valid sessions come back as the very object passed', () => {
  it.each<[string, unknown[]]>([
    [
      'a user message of text blocks',
      [
        { role: 'assistant', content: 'yes?' },
        { role: 'user', content: [text('a'), text('b', { citations: null })] },
      ],
    ],
    [
      'a user message with every media block',
      [
        { role: 'assistant', content: 'send it' },
        {
          role: 'user',
          content: [
            text('look'),
            { type: 'image', source: PNG },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, transformations: { oversized_image: 'error' } },
            { type: 'image', source: { type: 'file', file_id: 'file_011' } },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
              title: 'a.pdf',
              context: 'c',
              citations: { enabled: true },
            },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } },
            { type: 'document', source: { type: 'content', content: [text('chunk')] } },
            { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            { type: 'document', source: { type: 'file', file_id: 'file_012' } },
            {
              type: 'search_result',
              source: 'https://example.com',
              title: 'Example',
              content: [text('found')],
              citations: { enabled: false },
            },
          ],
        },
      ],
    ],
    [
      'an assistant turn as the API returns it (thinking, redacted thinking, cited text, a call)',
      [
        {
          role: 'assistant',
          content: [
            THOUGHT,
            REDACTED,
            text('Per the doc, ', {
              citations: [
                {
                  type: 'char_location',
                  cited_text: 'x',
                  document_index: 0,
                  document_title: null,
                  start_char_index: 0,
                  end_char_index: 1,
                  file_id: null,
                },
              ],
            }),
            { ...use('toolu_01'), caller: { type: 'direct' }, toolset_name: null },
          ],
        },
        { role: 'user', content: [result('toolu_01'), text('and then?')] },
      ],
    ],
    [
      'tool results of every content kind',
      [
        { role: 'assistant', content: [use('t1'), use('t2', 'grep', { q: 'x' }), use('t3'), use('t4')] },
        {
          role: 'user',
          content: [
            result('t2', [text('match'), { type: 'image', source: PNG }]),
            { type: 'tool_result', tool_use_id: 't1' },
            { ...result('t3', 'no such file'), is_error: true },
            result('t4', [
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd' } },
              { type: 'search_result', source: 's', title: 't', content: [] },
            ]),
          ],
        },
        { role: 'assistant', content: 'done' },
      ],
    ],
    [
      'consecutive messages of one role (the API merges them into one turn)',
      [
        { role: 'user', content: 'more' },
        { role: 'assistant', content: [use('t1')] },
        { role: 'assistant', content: [use('t2')] },
        { role: 'user', content: [result('t2')] },
        { role: 'user', content: [result('t1'), text('go on')] },
      ],
    ],
    ['a call still in flight at the end', [{ role: 'assistant', content: [text('Reading.'), use('t1')] }]],
    ['a prefilled final assistant message', [{ role: 'assistant', content: 'The answer is (' }]],
    ['an empty final assistant message', [{ role: 'assistant', content: '' }]],
    [
      'any JSON object as a tool input',
      [{ role: 'assistant', content: [use('t1', 'grep', {}), use('t2', 'grep', { nested: { a: [1, null] } })] }],
    ],
    ['a mid-conversation system message, last', [{ role: 'system', content: 'From now on, answer in French.' }]],
    [
      'a mid-conversation system message followed by an assistant message',
      [
        { role: 'system', content: [text('Be terse.', { cache_control: cache() })] },
        { role: 'assistant', content: 'OK.' },
      ],
    ],
    [
      'cache breakpoints on every block kind that takes one (4, the most)',
      [
        { role: 'assistant', content: [{ ...use('t1'), cache_control: cache() }] },
        {
          role: 'user',
          content: [
            { ...result('t1', [text('x', { cache_control: cache() })]), cache_control: cache('5m') },
            { type: 'image', source: PNG, cache_control: null },
          ],
        },
        { role: 'assistant', content: [text('y', { cache_control: cache() })] },
      ],
    ],
  ])('%s', (_name, messages) => {
    const input = session(messages);
    const before = JSON.stringify(input);
    expect(parseAnthropicMessagesSession(input, 's.json')).toBe(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('accepts an assistant message first (Anthropic’s API takes it)', () => {
    const input = {
      format: 'anthropic-messages',
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'assistant', content: 'Hi, how can I help?' },
        { role: 'user', content: 'x' },
      ],
    };
    expect(parseAnthropicMessagesSession(input)).toBe(input);
  });

  it('accepts every top-level field, in the session’s own key order', () => {
    const input = {
      stop_sequences: ['\n\nHuman:', 'END'],
      thinking: { type: 'enabled', budget_tokens: 2048, display: 'summarized' },
      messages: [{ role: 'user', content: 'hi' }],
      system: [text('You are terse.', { cache_control: cache('1h') }), text('Use tools.', { citations: null })],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      tools: [
        {
          type: 'custom',
          name: 'read_file',
          description: 'Reads a file',
          input_schema: { type: 'object', properties: {} },
          cache_control: cache('1h'),
          strict: true,
        },
        { type: null, name: 'grep', input_schema: { type: 'object' }, eager_input_streaming: null, input_examples: [{ q: 'x' }] },
      ],
      max_tokens: 4096,
      model: 'claude-opus-4-8',
      format: 'anthropic-messages',
    };
    const parsed = parseAnthropicMessagesSession(input);
    expect(parsed).toBe(input);
    expect(Object.keys(parsed)).toEqual(Object.keys(input));
  });

  it.each<[string, Record<string, unknown>]>([
    ['system as a string', { system: 'You are terse.' }],
    ['tool_choice "any"', { tools, tool_choice: { type: 'any' } }],
    ['tool_choice "tool"', { tools, tool_choice: { type: 'tool', name: 'grep', disable_parallel_tool_use: false } }],
    ['tool_choice "none"', { tools, tool_choice: { type: 'none' } }],
    ['thinking "adaptive"', { thinking: { type: 'adaptive', display: 'omitted' } }],
    ['thinking "adaptive" with a display of null', { thinking: { type: 'adaptive', display: null } }],
    ['thinking "between_tools"', { thinking: { type: 'between_tools' } }],
    ['thinking "disabled"', { thinking: { type: 'disabled' }, tools, tool_choice: { type: 'any' } }],
    ['thinking with tool_choice "auto"', { thinking: { type: 'enabled', budget_tokens: 1024 }, tools, tool_choice: { type: 'auto' } }],
    ['empty stop_sequences', { stop_sequences: [] }],
  ])('accepts %s', (_name, extra) => {
    const input = session([], extra);
    expect(parseAnthropicMessagesSession(input)).toBe(input);
  });

  it('accepts the body the @anthropic-ai/sdk sends for messages.create(), with "format" added', async () => {
    const params: MessageCreateParamsNonStreaming = {
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'You are a careful researcher.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      tools: [
        {
          name: 'read_file',
          description: 'Reads a file from the workspace.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          cache_control: { type: 'ephemeral', ttl: '1h' },
        },
      ],
      tool_choice: { type: 'auto' },
      thinking: { type: 'adaptive' },
      stop_sequences: ['<END>'],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Find the config.' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read config.json.', signature: 'EqQBCkgIBxAB' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: { path: 'config.json' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '{"debug":true}', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'assistant', content: 'The config enables debug.' },
        { role: 'user', content: 'Thanks. Now summarize.' },
        { role: 'system', content: 'Answer in one sentence.' },
      ],
    };
    let sent: string | undefined;
    const client = new Anthropic({
      apiKey: 'test-key',
      baseURL: 'http://127.0.0.1:9',
      maxRetries: 0,
      fetch: async (_url, init) => {
        sent = String(init?.body);
        const message = {
          id: 'msg_01',
          type: 'message',
          role: 'assistant',
          model: params.model,
          content: [{ type: 'text', text: 'ok', citations: null }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        };
        return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.messages.create(params);
    expect(sent).toBeDefined();
    const body = JSON.parse(sent ?? '') as Record<string, unknown>;
    expect(body).toEqual(params);
    const input = { format: 'anthropic-messages', ...body };
    expect(parseAnthropicMessagesSession(input, 'body.json')).toBe(input);
  });

  it('keeps thinking and redacted_thinking blocks verbatim, signatures included', () => {
    const input = session([
      { role: 'assistant', content: [{ signature: 'sig==', type: 'thinking', thinking: '  spaced\n' }, REDACTED, use('t1')] },
    ]);
    const before = JSON.stringify(input);
    expect(parseAnthropicMessagesSession(input)).toBe(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('is validation only: the schema’s own output is a rebuilt copy, which is why the input is returned', () => {
    const input = session([{ role: 'assistant', content: [{ input: {}, name: 'grep', id: 't1', type: 'tool_use' }] }]);
    const rebuilt = anthropicMessagesSessionSchema().parse(input);
    expect(rebuilt).not.toBe(input);
    const blockOf = (s: unknown) => (s as { messages: { content: unknown[] }[] }).messages[1]?.content[0];
    expect(Object.keys(blockOf(input) as object)).toEqual(['input', 'name', 'id', 'type']);
    expect(Object.keys(blockOf(parseAnthropicMessagesSession(input)) as object)).toEqual(['input', 'name', 'id', 'type']);
  });
});

const SESSION_KEYS = 'format, model, system, tools, tool_choice, messages, max_tokens, thinking, stop_sequences';
const SAMPLING =
  'is refused by Anthropic\'s API version 2026-10-21 (the one @anthropic-ai/sdk 1.x sends): "temperature", "top_p" and "top_k" get a 400 error, even at their defaults; leave it out';
const SERVER_TOOL_RULE = (type: string) =>
  `"${type}" is an Anthropic-defined or server tool, which forkpool does not run: declare a custom tool ({ "name", "description", "input_schema" }; its "type" is "custom" or left out)`;

describe('parseAnthropicMessagesSession: each rule fails with a located InputError', () => {
  it.each<[string, unknown, string]>([
    // the session
    [
      'not an object',
      [],
      's.json: a session must be a JSON object ({ "format": "anthropic-messages", "model", "max_tokens", "messages", … })',
    ],
    [
      'no format',
      { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] },
      's.json: format: is required ("anthropic-messages" for a session in Anthropic Messages\' shape)',
    ],
    ['another format', session([], { format: 'openai-chat' }), 's.json: format: must be "anthropic-messages"'],
    ['no model', { format: 'anthropic-messages', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }, 's.json: model: is required'],
    ['an empty model', session([], { model: '' }), 's.json: model: the model name must not be empty'],
    [
      'no messages',
      { format: 'anthropic-messages', model: 'm', max_tokens: 1 },
      's.json: messages: must be an array of messages ({ "role", "content" })',
    ],
    ['empty messages', session([], { messages: [] }), 's.json: messages: must hold at least one message'],
    [
      'no max_tokens',
      { format: 'anthropic-messages', model: 'm', messages: [{ role: 'user', content: 'x' }] },
      's.json: max_tokens: is required (the most tokens a reply may use)',
    ],
    [
      'max_tokens 0',
      session([], { max_tokens: 0 }),
      's.json: max_tokens: must be a positive integer: 0 only pre-warms the cache and would leave every fork without room to answer',
    ],
    ['a negative max_tokens', session([], { max_tokens: -5 }), 's.json: max_tokens: must be a positive integer'],
    ['a fractional max_tokens', session([], { max_tokens: 1.5 }), 's.json: max_tokens: must be a positive integer'],
    ['max_tokens as a string', session([], { max_tokens: '100' }), 's.json: max_tokens: must be a positive integer'],
    [
      'an unknown top-level field',
      session([], { metadata: { user_id: 'u' } }),
      `s.json: metadata: is not a field of an anthropic-messages session (allowed: ${SESSION_KEYS})`,
    ],
    [
      'two unknown top-level fields',
      session([], { service_tier: 'auto', speed: 'fast' }),
      `s.json: "service_tier", "speed" are not fields of an anthropic-messages session (allowed: ${SESSION_KEYS})`,
    ],
    [
      'a field named like an Object.prototype member',
      session([], { toString: 'x' }),
      `s.json: toString: is not a field of an anthropic-messages session (allowed: ${SESSION_KEYS})`,
    ],
    [
      'stream',
      session([], { stream: true }),
      's.json: stream: is not a session field: forkpool decides how each request is sent; leave "stream" out',
    ],
    [
      'a Gemini history',
      session([], { history: [] }),
      's.json: history: is not an anthropic-messages session field: the conversation goes in "messages"',
    ],
    [
      'Gemini contents',
      session([], { contents: [] }),
      's.json: contents: is not an anthropic-messages session field: the conversation goes in "messages"',
    ],
    [
      'a Gemini systemInstruction',
      session([], { systemInstruction: { parts: [] } }),
      's.json: systemInstruction: is not an anthropic-messages session field: the system prompt goes in "system"',
    ],
    ['temperature', session([], { temperature: 0.2 }), `s.json: temperature: ${SAMPLING}`],
    ['top_p', session([], { top_p: 0.9 }), `s.json: top_p: ${SAMPLING}`],
    ['top_k', session([], { top_k: 40 }), `s.json: top_k: ${SAMPLING}`],
    [
      'a top-level cache_control',
      session([], { cache_control: { type: 'ephemeral' } }),
      's.json: cache_control: top-level (automatic) cache_control is not accepted: forkpool places its own breakpoints; mark the blocks you want cached with "cache_control"',
    ],

    // system
    ['system as a number', session([], { system: 1 }), 's.json: system: must be a string or an array of text blocks, not the number 1'],
    [
      'an image in system',
      session([], { system: [{ type: 'image', source: PNG }] }),
      's.json: system[0].type: must be "text", not "image"',
    ],
    [
      'an empty system text block',
      session([], { system: [text('')] }),
      "s.json: system[0].text: a text block must not be empty (Anthropic's API refuses empty text blocks)",
    ],

    // messages and roles
    ['a message that is not an object', session(['hi']), 's.json: messages[1]: a message must be a JSON object, not a string'],
    [
      'a message without role',
      session([{ content: 'x' }]),
      's.json: messages[1].role: is required (allowed: "user", "assistant" or "system")',
    ],
    [
      'an unknown role',
      session([{ role: 'human', content: 'x' }]),
      's.json: messages[1].role: must be "user", "assistant" or "system", not "human"',
    ],
    [
      'the OpenAI tool role',
      session([{ role: 'tool', tool_call_id: 'c', content: 'x' }]),
      's.json: messages[1].role: the "tool" role is OpenAI\'s: a tool\'s result is a { "type": "tool_result" } block in a "user" message',
    ],
    [
      'the OpenAI developer role',
      session([{ role: 'developer', content: 'x' }]),
      's.json: messages[1].role: the "developer" role is OpenAI\'s: the system prompt goes in the top-level "system" field',
    ],
    [
      'the Gemini model role',
      session([{ role: 'model', content: 'x' }]),
      's.json: messages[1].role: the "model" role is Gemini\'s: the model\'s turns are "assistant" messages',
    ],
    [
      'a system message first',
      {
        format: 'anthropic-messages',
        model: 'm',
        max_tokens: 1,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'x' },
        ],
      },
      's.json: messages[0].role: the system prompt goes in the top-level "system" field: Anthropic takes a { "role": "system" } message only mid-conversation (right after a user message)',
    ],
    [
      'a system message after an assistant message',
      session([
        { role: 'assistant', content: 'a' },
        { role: 'system', content: 'Be brief.' },
      ]),
      's.json: messages[2].role: a { "role": "system" } message must come right after a user message (a mid-conversation system message)',
    ],
    [
      'a system message followed by a user message',
      session([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'x' },
      ]),
      's.json: messages[1].role: a { "role": "system" } message must be the last message or be followed by an assistant message',
    ],
    [
      'two system messages in a row',
      session([
        { role: 'system', content: 'a' },
        { role: 'system', content: 'b' },
      ]),
      's.json: messages[1].role: a { "role": "system" } message must be the last message or be followed by an assistant message',
    ],
    [
      'an unknown user field',
      session([{ role: 'user', content: 'x', name: 'ann' }]),
      's.json: messages[1].name: is not a field of a "user" message (allowed: role, content)',
    ],
    [
      'OpenAI’s null content',
      session([{ role: 'assistant', content: null, tool_calls: [] }]),
      's.json: messages[1].content: must be a string or an array of content blocks, not null',
    ],
    [
      'OpenAI tool_calls beside content',
      session([{ role: 'assistant', content: 'x', tool_calls: [] }]),
      's.json: messages[1].tool_calls: is OpenAI\'s: a call is a { "type": "tool_use" } block in the assistant message\'s "content"',
    ],
    [
      'an OpenAI tool_call_id on a user message',
      session([{ role: 'user', content: 'x', tool_call_id: 'c' }]),
      's.json: messages[1].tool_call_id: is OpenAI\'s: a result is a { "type": "tool_result", "tool_use_id" } block in a user message\'s "content"',
    ],
    [
      'Gemini parts beside content',
      session([{ role: 'user', content: 'x', parts: [] }]),
      's.json: messages[1].parts: is Gemini\'s: use "content" (a string or an array of content blocks)',
    ],
    ['a user message without content', session([{ role: 'user' }]), 's.json: messages[1].content: is required'],
    [
      'numeric content',
      session([{ role: 'user', content: 3 }]),
      's.json: messages[1].content: must be a string or an array of content blocks, not the number 3',
    ],
    [
      'empty string content',
      session([
        { role: 'assistant', content: '' },
        { role: 'user', content: 'x' },
      ]),
      "s.json: messages[1].content: must not be empty (Anthropic's API takes empty content only in a final assistant message)",
    ],
    [
      'an empty content array',
      session([
        { role: 'assistant', content: 'a' },
        { role: 'user', content: [] },
      ]),
      "s.json: messages[2].content: must not be empty (Anthropic's API takes empty content only in a final assistant message)",
    ],
    [
      'an empty final user message',
      session([{ role: 'user', content: '' }]),
      "s.json: messages[1].content: must not be empty (Anthropic's API takes empty content only in a final assistant message)",
    ],

    // content blocks
    [
      'a block that is not an object',
      session([{ role: 'user', content: ['x'] }]),
      's.json: messages[1].content[0]: a content block must be a JSON object, not a string',
    ],
    [
      'a block without type',
      session([{ role: 'user', content: [{ text: 'x' }] }]),
      's.json: messages[1].content[0].type: is required (allowed: "text", "image", "document", "search_result" or "tool_result")',
    ],
    [
      'an unknown block type',
      session([{ role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }]),
      's.json: messages[1].content[0].type: must be "text", "image", "search_result", "thinking", "redacted_thinking" or "tool_use", not "refusal"',
    ],
    [
      'an OpenAI image_url part',
      session([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] }]),
      's.json: messages[1].content[0].type: must be "text", "image", "document", "search_result" or "tool_result", not "image_url"',
    ],
    [
      'a text block without text',
      session([{ role: 'user', content: [{ type: 'text' }] }]),
      's.json: messages[1].content[0].text: is required',
    ],
    [
      'an empty text block',
      session([{ role: 'user', content: [text('')] }]),
      "s.json: messages[1].content[0].text: a text block must not be empty (Anthropic's API refuses empty text blocks)",
    ],
    [
      'an unknown text field',
      session([{ role: 'user', content: [text('x', { cache: {} })] }]),
      's.json: messages[1].content[0].cache: is not a field of a text block (allowed: type, text, cache_control, citations)',
    ],
    [
      'citations on a user text block',
      session([{ role: 'user', content: [text('x', { citations: [{ type: 'char_location', cited_text: 'x' }] })] }]),
      "s.json: messages[1].content[0].citations: citations on a user message's text block are refused by Anthropic's API (since version 2026-10-21): only the model's text carries them",
    ],
    [
      'a citation of an unknown kind',
      session([{ role: 'assistant', content: [text('x', { citations: [{ type: 'url_location' }] })] }]),
      's.json: messages[1].content[0].citations[0].type: must be "char_location", "page_location", "content_block_location", "search_result_location" or "web_search_result_location", not "url_location"',
    ],
    [
      'citations not an array',
      session([{ role: 'assistant', content: [text('x', { citations: {} })] }]),
      's.json: messages[1].content[0].citations: must be an array of citations (or null)',
    ],
    [
      'an image without source',
      session([{ role: 'user', content: [{ type: 'image' }] }]),
      's.json: messages[1].content[0].source: is required',
    ],
    [
      'an image source of an unknown type',
      session([{ role: 'user', content: [{ type: 'image', source: { type: 'ftp', url: 'u' } }] }]),
      's.json: messages[1].content[0].source.type: must be "base64", "url" or "file", not "ftp"',
    ],
    [
      'an image source that is a string',
      session([{ role: 'user', content: [{ type: 'image', source: 'https://x' }] }]),
      's.json: messages[1].content[0].source: an image source must be a JSON object, not a string',
    ],
    [
      'a document source without type',
      session([{ role: 'user', content: [{ type: 'document', source: { data: 'x' } }] }]),
      's.json: messages[1].content[0].source.type: is required (allowed: "base64", "text", "content", "url" or "file")',
    ],
    [
      'a document in an assistant message',
      session([{ role: 'assistant', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd' } }] }]),
      "s.json: messages[1].content[0].type: a document block is refused in an assistant message by Anthropic's API (since version 2026-10-21): put it in a user message",
    ],
    [
      'a search_result without title',
      session([{ role: 'user', content: [{ type: 'search_result', source: 's', content: [] }] }]),
      's.json: messages[1].content[0].title: is required',
    ],
    [
      'a thinking block from the user',
      session([{ role: 'user', content: [THOUGHT] }]),
      "s.json: messages[1].content[0].type: thinking blocks are the model's: they go in assistant messages",
    ],
    [
      'a thinking block without signature',
      session([{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }]),
      's.json: messages[1].content[0].signature: is required',
    ],
    [
      'a numeric signature',
      session([{ role: 'assistant', content: [{ ...THOUGHT, signature: 7 }] }]),
      's.json: messages[1].content[0].signature: must be a string, not the number 7',
    ],
    [
      'cache_control on a thinking block',
      session([{ role: 'assistant', content: [{ ...THOUGHT, cache_control: cache() }] }]),
      "s.json: messages[1].content[0].cache_control: a thinking block cannot carry cache_control (Anthropic's API refuses it): mark another block",
    ],
    [
      'redacted thinking without data',
      session([{ role: 'assistant', content: [{ type: 'redacted_thinking' }] }]),
      's.json: messages[1].content[0].data: is required',
    ],
    [
      'a server tool block',
      session([{ role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } }] }]),
      's.json: messages[1].content[0].type: "server_tool_use" blocks come from server tools, which forkpool does not run (it runs the session\'s own tools)',
    ],
    [
      'a web search result block',
      session([{ role: 'user', content: [{ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }] }]),
      's.json: messages[1].content[0].type: "web_search_tool_result" blocks come from server tools, which forkpool does not run (it runs the session\'s own tools)',
    ],

    // cache_control
    [
      'a cache_control of another type',
      session([{ role: 'user', content: [text('x', { cache_control: { type: 'persistent' } })] }]),
      's.json: messages[1].content[0].cache_control.type: must be "ephemeral" (the only cache_control type)',
    ],
    [
      'an unknown ttl',
      session([{ role: 'user', content: [text('x', { cache_control: { type: 'ephemeral', ttl: '24h' } })] }]),
      's.json: messages[1].content[0].cache_control.ttl: must be "5m" or "1h"',
    ],
    [
      'an unknown cache_control field',
      session([{ role: 'user', content: [text('x', { cache_control: { type: 'ephemeral', scope: 'global' } })] }]),
      's.json: messages[1].content[0].cache_control.scope: is not a field of a cache_control marker (allowed: type, ttl)',
    ],
    [
      'a 5th cache breakpoint',
      session(
        [
          { role: 'assistant', content: [text('a', { cache_control: cache() }), text('b', { cache_control: cache() })] },
          { role: 'user', content: [text('c', { cache_control: cache() })] },
        ],
        { system: [text('s', { cache_control: cache() })], tools: [{ ...tools[1], cache_control: cache() }] },
      ),
      "s.json: messages[2].content[0].cache_control: is a 5th cache_control breakpoint: Anthropic's API takes at most 4 in a request (tools, system and messages together)",
    ],
    [
      'a 1-hour breakpoint after a 5-minute one',
      session([{ role: 'assistant', content: [text('a', { cache_control: cache('1h') })] }], {
        tools: [{ ...tools[1], cache_control: cache() }],
      }),
      "s.json: messages[1].content[0].cache_control.ttl: a 1-hour breakpoint must not come after a 5-minute one (tools[0].cache_control): Anthropic's API reads tools, then system, then messages, and takes 1-hour breakpoints first",
    ],

    // tool_use and tool_result
    [
      'a tool_use without id',
      session([{ role: 'assistant', content: [{ type: 'tool_use', name: 'f', input: {} }] }]),
      's.json: messages[1].content[0].id: is required',
    ],
    [
      'an empty tool_use id',
      session([{ role: 'assistant', content: [use('')] }]),
      's.json: messages[1].content[0].id: a tool_use id must not be empty',
    ],
    [
      'a tool_use without name',
      session([{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', input: {} }] }]),
      's.json: messages[1].content[0].name: is required',
    ],
    [
      'a tool_use input that is a string',
      session([{ role: 'assistant', content: [use('t1', 'f', '{"path":"a"}')] }]),
      's.json: messages[1].content[0].input: must be a JSON object',
    ],
    [
      'a tool_use without input',
      session([{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f' }] }]),
      's.json: messages[1].content[0].input: is required',
    ],
    [
      'a tool_use called by code execution',
      session([{ role: 'assistant', content: [{ ...use('t1'), caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' } }] }]),
      's.json: messages[1].content[0].caller.type: a tool_use called by the code execution tool (programmatic tool calling) is not supported: forkpool runs no server tools',
    ],
    [
      'a toolset member',
      session([{ role: 'assistant', content: [{ ...use('t1'), toolset_name: 'browser' }] }]),
      's.json: messages[1].content[0].toolset_name: toolset members (the computer and browser toolsets) are not supported: forkpool runs the session\'s own tools (leave "toolset_name" out or null)',
    ],
    [
      'a tool_use in a user message',
      session([{ role: 'user', content: [use('t1')] }]),
      's.json: messages[1].content[0].type: a tool_use block is the model\'s call: it goes in an assistant message (a user message answers it with a "tool_result")',
    ],
    [
      'a tool_result in an assistant message',
      session([{ role: 'assistant', content: [result('t1')] }]),
      's.json: messages[1].content[0].type: a tool_result block goes in a user message (it answers a tool_use of the assistant message before it)',
    ],
    [
      'a tool_result without tool_use_id',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [{ type: 'tool_result', content: 'x' }] },
      ]),
      's.json: messages[2].content[0].tool_use_id: is required',
    ],
    [
      'a tool_result with numeric content',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1', 5)] },
      ]),
      's.json: messages[2].content[0].content: must be a string or an array of text, image, document or search_result blocks, not the number 5',
    ],
    [
      'a thinking block inside a tool_result',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1', [THOUGHT])] },
      ]),
      's.json: messages[2].content[0].content[0].type: must be "text", "image", "document" or "search_result", not "thinking"',
    ],
    [
      'a tool_reference inside a tool_result',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1', [{ type: 'tool_reference', tool_name: 'x' }])] },
      ]),
      's.json: messages[2].content[0].content[0].type: tool_reference blocks come from tool search, a server tool forkpool does not run',
    ],
    [
      'a tool_result with an OpenAI-style output field',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [{ ...result('t1'), output: 'x' }] },
      ]),
      's.json: messages[2].content[0].output: is not a field of a tool_result block (allowed: type, tool_use_id, content, is_error, cache_control, toolset_name)',
    ],
    [
      'a duplicate tool_use id',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1')] },
        { role: 'assistant', content: [use('t2'), use('t1')] },
      ]),
      's.json: messages[3].content[1].id: the tool_use id "t1" is already used by messages[1].content[0]; tool_use ids must be unique in a session',
    ],
    [
      'a tool_result that answers no tool_use',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1'), result('t9')] },
      ]),
      's.json: messages[2].content[1].tool_use_id: "t9" answers no tool_use: a tool_result must answer a tool_use of the assistant message right before it',
    ],
    [
      'a tool_result in the first user message',
      { format: 'anthropic-messages', model: 'm', max_tokens: 1, messages: [{ role: 'user', content: [result('t1')] }] },
      's.json: messages[0].content[0].tool_use_id: "t1" answers no tool_use: a tool_result must answer a tool_use of the assistant message right before it',
    ],
    [
      'a tool_result answering a later tool_use',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1')] },
        { role: 'assistant', content: [use('t2')] },
        { role: 'user', content: [result('t2'), result('t0')] },
        { role: 'assistant', content: [use('t0')] },
      ]),
      's.json: messages[4].content[1].tool_use_id: "t0" answers no tool_use: a tool_result must answer a tool_use of the assistant message right before it',
    ],
    [
      'a tool_use left unanswered',
      session([
        { role: 'assistant', content: [use('t1'), use('t2')] },
        { role: 'user', content: [result('t1')] },
      ]),
      's.json: messages[1].content[1].id: the tool_use "t2" is not answered: the user message right after it must hold a tool_result for each of its tool_use blocks',
    ],
    [
      'a tool_use answered twice',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [result('t1')] },
        { role: 'assistant', content: [use('t2')] },
        { role: 'user', content: [result('t2')] },
        { role: 'assistant', content: [use('t3')] },
        { role: 'user', content: [result('t3'), { type: 'tool_result', tool_use_id: 't1', content: 'again' }] },
      ]),
      's.json: messages[6].content[1].tool_use_id: the tool_use "t1" is already answered by messages[2].content[0]; a tool_use is answered once',
    ],
    [
      'a call answered only after another turn',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: 'wait' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [result('t1')] },
      ]),
      's.json: messages[4].content[0].tool_use_id: answers the tool_use "t1" of messages[1], but a tool_result must answer a tool_use of the assistant message right before it (consecutive assistant messages count as one)',
    ],
    [
      'text before a tool_result',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: [text('here:'), result('t1')] },
      ]),
      "s.json: messages[2].content[1]: a tool_result must come before any other block of its user message (Anthropic's API refuses text ahead of tool results; consecutive user messages count as one)",
    ],
    [
      'a tool_result after a user message of text (one merged turn)',
      session([
        { role: 'assistant', content: [use('t1')] },
        { role: 'user', content: 'here:' },
        { role: 'user', content: [result('t1')] },
      ]),
      "s.json: messages[3].content[0]: a tool_result must come before any other block of its user message (Anthropic's API refuses text ahead of tool results; consecutive user messages count as one)",
    ],

    // tools and tool_choice
    [
      'tools not an array',
      session([], { tools: {} }),
      's.json: tools: must be an array of tools ({ "name", "description", "input_schema" })',
    ],
    ['a tool without name', session([], { tools: [{ input_schema: { type: 'object' } }] }), 's.json: tools[0].name: is required'],
    ['a tool without input_schema', session([], { tools: [{ name: 'f' }] }), 's.json: tools[0].input_schema: is required'],
    [
      'an input_schema that is not an object schema',
      session([], { tools: [{ name: 'f', input_schema: { type: 'array' } }] }),
      's.json: tools[0].input_schema.type: must be "object" (a tool\'s input is a JSON object)',
    ],
    [
      'an input_schema without type',
      session([], { tools: [{ name: 'f', input_schema: { properties: {} } }] }),
      's.json: tools[0].input_schema.type: is required ("object": a tool\'s input is a JSON object)',
    ],
    [
      'an input_schema that is a string',
      session([], { tools: [{ name: 'f', input_schema: '{}' }] }),
      "s.json: tools[0].input_schema: must be a JSON object (the JSON Schema of the tool's input)",
    ],
    [
      'a server tool',
      session([], { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] }),
      `s.json: tools[0].type: ${SERVER_TOOL_RULE('web_search_20250305')}`,
    ],
    [
      'an Anthropic-defined client tool',
      session([], { tools: [{ type: 'bash_20250124', name: 'bash' }] }),
      `s.json: tools[0].type: ${SERVER_TOOL_RULE('bash_20250124')}`,
    ],
    [
      'an OpenAI function tool',
      session([], { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }),
      's.json: tools[0].type: is OpenAI\'s tool shape: an Anthropic tool is { "name", "description", "input_schema" } (its "type" is "custom" or left out)',
    ],
    [
      'OpenAI parameters',
      session([], { tools: [{ name: 'f', input_schema: { type: 'object' }, parameters: {} }] }),
      's.json: tools[0].parameters: is OpenAI\'s: the JSON Schema of a tool\'s input goes in "input_schema"',
    ],
    [
      'defer_loading',
      session([], { tools: [{ ...tools[1], defer_loading: true }] }),
      's.json: tools[0].defer_loading: "defer_loading" works with tool search, a server tool forkpool does not run: leave it out',
    ],
    [
      'allowed_callers',
      session([], { tools: [{ ...tools[1], allowed_callers: ['direct'] }] }),
      's.json: tools[0].allowed_callers: "allowed_callers" works with the code execution tool (programmatic tool calling), a server tool forkpool does not run: leave it out',
    ],
    [
      'an unknown tool field',
      session([], { tools: [{ ...tools[1], examples: [] }] }),
      's.json: tools[0].examples: is not a field of a tool (allowed: type, name, description, input_schema, cache_control, strict, eager_input_streaming, input_examples)',
    ],
    [
      'a tool declared twice',
      session([], { tools: [...tools, { name: 'grep', input_schema: { type: 'object' } }] }),
      's.json: tools[2].name: the tool "grep" is declared twice',
    ],
    [
      'tool_choice as a string',
      session([], { tools, tool_choice: 'auto' }),
      's.json: tool_choice: must be a tool choice object ({ "type": "auto", "any", "tool" or "none" }), not a string',
    ],
    [
      'tool_choice of an unknown type',
      session([], { tools, tool_choice: { type: 'all' } }),
      's.json: tool_choice.type: must be "auto", "any", "tool" or "none", not "all"',
    ],
    [
      'OpenAI’s tool_choice "required"',
      session([], { tools, tool_choice: { type: 'required' } }),
      's.json: tool_choice.type: "required" is OpenAI\'s: Anthropic\'s is "any"',
    ],
    ['tool_choice "tool" without name', session([], { tools, tool_choice: { type: 'tool' } }), 's.json: tool_choice.name: is required'],
    [
      'tool_choice naming an undeclared tool',
      session([], { tools, tool_choice: { type: 'tool', name: 'write_file' } }),
      's.json: tool_choice.name: names the tool "write_file", which "tools" does not declare',
    ],
    [
      'tool_choice "tool" without tools',
      session([], { tool_choice: { type: 'tool', name: 'grep' } }),
      's.json: tool_choice.name: names the tool "grep", which "tools" does not declare',
    ],
    [
      'disable_parallel_tool_use on "none"',
      session([], { tools, tool_choice: { type: 'none', disable_parallel_tool_use: true } }),
      's.json: tool_choice.disable_parallel_tool_use: is not a field of a "none" tool choice (allowed: type)',
    ],
    [
      'disable_parallel_tool_use not a boolean',
      session([], { tools, tool_choice: { type: 'auto', disable_parallel_tool_use: 'yes' } }),
      's.json: tool_choice.disable_parallel_tool_use: must be true or false, not a string',
    ],

    // thinking
    [
      'thinking of an unknown type',
      session([], { thinking: { type: 'on' } }),
      's.json: thinking.type: must be "enabled", "adaptive", "between_tools" or "disabled", not "on"',
    ],
    ['thinking as a boolean', session([], { thinking: true }), 's.json: thinking: "thinking" must be a JSON object, not a boolean'],
    ['enabled thinking without budget', session([], { thinking: { type: 'enabled' } }), 's.json: thinking.budget_tokens: is required'],
    [
      'a budget under 1024',
      session([], { thinking: { type: 'enabled', budget_tokens: 512 } }),
      's.json: thinking.budget_tokens: must be an integer of at least 1024',
    ],
    [
      'a fractional budget',
      session([], { thinking: { type: 'enabled', budget_tokens: 2048.5 } }),
      's.json: thinking.budget_tokens: must be an integer of at least 1024',
    ],
    [
      'a budget not under max_tokens',
      session([], { thinking: { type: 'enabled', budget_tokens: 4096 } }),
      's.json: thinking.budget_tokens: must be less than "max_tokens" (4096): thinking tokens count toward it',
    ],
    [
      'an unknown display',
      session([], { thinking: { type: 'adaptive', display: 'full' } }),
      's.json: thinking.display: must be "summarized" or "omitted" (or null)',
    ],
    [
      'budget_tokens on adaptive thinking',
      session([], { thinking: { type: 'adaptive', budget_tokens: 2048 } }),
      's.json: thinking.budget_tokens: is not a field of an "adaptive" thinking config (allowed: type, display)',
    ],
    [
      'thinking with a forced tool',
      session([], { thinking: { type: 'enabled', budget_tokens: 1024 }, tools, tool_choice: { type: 'tool', name: 'grep' } }),
      's.json: tool_choice.type: "tool" forces a tool call, which Anthropic\'s API refuses while thinking is on ("thinking": "enabled"): use "auto" or "none"',
    ],
    [
      'adaptive thinking with tool_choice "any"',
      session([], { thinking: { type: 'adaptive' }, tools, tool_choice: { type: 'any' } }),
      's.json: tool_choice.type: "any" forces a tool call, which Anthropic\'s API refuses while thinking is on ("thinking": "adaptive"): use "auto" or "none"',
    ],

    // stop_sequences
    ['stop_sequences as a string', session([], { stop_sequences: 'END' }), 's.json: stop_sequences: must be an array of strings'],
    [
      'a number in stop_sequences',
      session([], { stop_sequences: ['a', 5] }),
      's.json: stop_sequences[1]: must be a string, not the number 5',
    ],

    // unsafe JSON, checked before the schema
    [
      'a __proto__ key',
      JSON.parse('{"format":"anthropic-messages","model":"m","max_tokens":1,"messages":[{"role":"user","content":"x","__proto__":{}}]}'),
      's.json: messages[0].__proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    ],
    [
      'a NaN max_tokens',
      session([], { max_tokens: Number.NaN }),
      's.json: max_tokens: NaN is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
  ])('%s', (_name, input, message) => {
    const err = errorOf(() => parseAnthropicMessagesSession(input, 's.json'));
    expect(err.message).toBe(message);
    expect(err.file).toBe('s.json');
  });

  it('reports the path and the rule separately, and no file when none is given', () => {
    const err = errorOf(() => parseAnthropicMessagesSession(session([{ role: 'assistant', content: [use('t1', '')] }])));
    expect(err.file).toBeUndefined();
    expect(err.path).toBe('messages[1].content[0].name');
    expect(err.rule).toBe('a tool name must not be empty');
    expect(err.message).toBe('messages[1].content[0].name: a tool name must not be empty');
  });
});

describe('types', () => {
  it('session messages are messages the @anthropic-ai/sdk takes, and a session minus format is a create() body', () => {
    expectTypeOf<AnthropicMessagesSession['messages'][number]>().toExtend<MessageParam>();
    expectTypeOf<AnthropicMessage>().toExtend<MessageParam>();
    expectTypeOf<AnthropicContentBlock>().toExtend<ContentBlockParam>();
    expectTypeOf<AnthropicToolUseBlock>().toExtend<ToolUseBlockParam>();
    expectTypeOf<AnthropicToolResultBlock>().toExtend<ToolResultBlockParam>();
    expectTypeOf<AnthropicTool>().toExtend<Tool>();
    expectTypeOf<AnthropicCacheControl>().toExtend<CacheControlEphemeral>();
    expectTypeOf<Omit<AnthropicMessagesSession, 'format'>>().toExtend<MessageCreateParamsNonStreaming>();
    expectTypeOf(parseAnthropicMessagesSession).returns.toEqualTypeOf<AnthropicMessagesSession>();
    // Thinking blocks are the SDK's, unchanged.
    expectTypeOf<ThinkingBlockParam>().toExtend<AnthropicContentBlock>();
    // What is refused is not in the types either.
    expectTypeOf<ServerToolUseBlockParam>().not.toExtend<AnthropicContentBlock>();
    expectTypeOf<WebSearchTool20250305>().not.toExtend<AnthropicTool>();
  });

  // vitest does not type-check test files (and `tsc -p .` covers src only), so the assertions
  // above are compiled here: a type that drifts from the SDK's fails this test.
  it('this file type-checks against the @anthropic-ai/sdk', { timeout: 120_000 }, () => {
    expect(typeErrorsOf(fileURLToPath(import.meta.url))).toEqual([]);
  });
});

describe('whitespace-only text (issue 22): refused where the Messages API refuses it, with the path and the rule', () => {
  const MESSAGE_RULE =
    'holds only whitespace text: Anthropic\'s API refuses a message whose text is all whitespace ("text content blocks must contain non-whitespace text"); leave the block out, or give the message other content';
  const SYSTEM_RULE =
    'holds only whitespace text: Anthropic\'s API refuses a system prompt that is all whitespace ("system: text content blocks must contain non-whitespace text"); leave it out or write one';

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a user message of "\\n"',
      session([
        { role: 'assistant', content: 'a' },
        { role: 'user', content: '\n' },
      ]),
      `s.json: messages[2].content: ${MESSAGE_RULE}`,
    ],
    [
      'a lone whitespace block',
      session([
        { role: 'assistant', content: [text(' ')] },
        { role: 'user', content: 'x' },
      ]),
      `s.json: messages[1].content[0].text: ${MESSAGE_RULE}`,
    ],
    [
      'whitespace blocks only',
      session([
        { role: 'assistant', content: [text('\n\n'), text('\t')] },
        { role: 'user', content: 'x' },
      ]),
      `s.json: messages[1].content[0].text: ${MESSAGE_RULE}`,
    ],
    [
      'a final assistant message of whitespace',
      session([{ role: 'assistant', content: '  ' }]),
      `s.json: messages[1].content: ${MESSAGE_RULE}`,
    ],
    ['a whitespace system string', session([], { system: '  ' }), `s.json: system: ${SYSTEM_RULE}`],
    ['whitespace system blocks', session([], { system: [text('\n')] }), `s.json: system[0].text: ${SYSTEM_RULE}`],
  ])('%s', (_name, input, message) => {
    expect(errorOf(() => parseAnthropicMessagesSession(input, 's.json')).message).toBe(message);
  });

  it('whitespace beside other content, in a tool_result, or an empty system string is accepted (the API takes them)', () => {
    const accepted = session(
      [
        { role: 'assistant', content: [text(' '), text('ok')] },
        { role: 'user', content: [text('hi'), text(' ')] },
        { role: 'assistant', content: [text('\n\n'), use('t1')] },
        { role: 'user', content: [result('t1', ' ')] },
      ],
      { system: '', tools },
    );
    expect(parseAnthropicMessagesSession(accepted)).toBe(accepted);
  });
});
