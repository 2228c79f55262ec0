import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type AnthropicMessagesSession,
  type Content,
  ConversionError,
  type ConvertOptions,
  convertSession,
  type GeminiSession,
  InputError,
  type OpenAIChatSession,
  type ParentSession,
  parseSession,
} from '../src/index.js';

/*
 * Converting sessions between Gemini's shape and OpenAI Chat Completions': every rule of
 * src/convert (to-openai-chat.ts, to-gemini.ts), every error naming its path, and the round trip.
 */

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ParentSession;
const EXAMPLE = 'examples/session.json';
const RICH = 'test/fixtures/convert/gemini-calls.json';

function gemini(history: unknown[], extra: Record<string, unknown> = {}): GeminiSession {
  return { model: 'gemini-2.5-flash', ...extra, history } as GeminiSession;
}

function chat(messages: unknown[], extra: Record<string, unknown> = {}): OpenAIChatSession {
  return { format: 'openai-chat', model: 'gpt-4.1', messages, ...extra } as OpenAIChatSession;
}

const user = (...texts: string[]): Content => ({ role: 'user', parts: texts.map((text) => ({ text })) });

function toChat(session: GeminiSession, options?: ConvertOptions): OpenAIChatSession {
  const { session: out } = convertSession(session, 'openai-chat', options);
  parseSession(out);
  return out as OpenAIChatSession;
}

function toGemini(session: OpenAIChatSession, options?: ConvertOptions): GeminiSession {
  const { session: out } = convertSession(session, 'gemini', options);
  parseSession(out);
  return out as GeminiSession;
}

function errorOf(fn: () => unknown): ConversionError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConversionError) return err;
    throw err;
  }
  throw new Error('expected a ConversionError');
}

describe('round trip Gemini → openai-chat → Gemini', () => {
  it.each([EXAMPLE, RICH])('%s comes back deep-equal, and in the same key order', (path) => {
    const original = readJson(path);
    const there = convertSession(original, 'openai-chat');
    expect(parseSession(there.session)).toBe(there.session);
    const back = convertSession(there.session, 'gemini');
    expect(back.session).toEqual(original);
    expect(JSON.stringify(back.session)).toBe(JSON.stringify(original));
    expect(there.dropped).toEqual([]);
    expect(back.dropped).toEqual([]);
  });

  it('reports what it converted', () => {
    const result = convertSession(readJson(RICH), 'openai-chat');
    expect(result).toMatchObject({ from: 'gemini', to: 'openai-chat', messages: { from: 10, to: 13 }, tools: 3, dropped: [] });
  });

  it('writes keys in the documented order', () => {
    const there = convertSession(readJson(RICH), 'openai-chat').session;
    expect(Object.keys(there)).toEqual([
      'format',
      'model',
      'messages',
      'tools',
      'tool_choice',
      'temperature',
      'top_p',
      'max_tokens',
      'response_format',
      'seed',
      'stop',
    ]);
    const back = convertSession(there, 'gemini').session as GeminiSession;
    expect(Object.keys(back)).toEqual(['model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'history']);
    expect(Object.keys(back.generationConfig ?? {})).toEqual([
      'temperature',
      'topP',
      'maxOutputTokens',
      'stopSequences',
      'seed',
      'responseMimeType',
      'responseJsonSchema',
    ]);
  });

  it('neither changes its input nor shares objects with it', () => {
    const original = readJson(RICH);
    const copy = structuredClone(original);
    const there = convertSession(original, 'openai-chat').session as OpenAIChatSession;
    expect(original).toEqual(copy);
    const params = there.tools?.[0]?.function.parameters as Record<string, unknown>;
    params.type = 'changed';
    expect(JSON.stringify(original)).toBe(JSON.stringify(copy));
  });
});

describe('Gemini → openai-chat: messages', () => {
  it('the system instruction becomes one system message: a string for one part, text parts for several', () => {
    expect(toChat(gemini([user('hi')], { systemInstruction: { parts: [{ text: 'Be brief.' }] } })).messages[0]).toEqual({
      role: 'system',
      content: 'Be brief.',
    });
    expect(toChat(gemini([], { systemInstruction: { parts: [{ text: 'a' }, { text: 'b' }] } })).messages).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('user text: a string for one part, text parts for several', () => {
    expect(toChat(gemini([user('one')])).messages).toEqual([{ role: 'user', content: 'one' }]);
    expect(toChat(gemini([user('a', 'b')])).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('model text becomes assistant content and calls become tool_calls (text first); a call-only message has no content', () => {
    const out = toChat(
      gemini([
        user('go'),
        { role: 'model', parts: [{ functionCall: { id: 'x', name: 'f', args: { a: 1 } } }, { text: 'calling f' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'x', name: 'f', response: { output: 'ok' } } }] },
        { role: 'model', parts: [{ functionCall: { id: 'y', name: 'g' } }] },
      ]),
    );
    expect(out.messages[1]).toEqual({
      role: 'assistant',
      content: 'calling f',
      tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    });
    expect(out.messages[3]).toEqual({
      role: 'assistant',
      tool_calls: [{ id: 'y', type: 'function', function: { name: 'g', arguments: '{}' } }],
    });
  });

  it('a call without an id gets call_<n> (n: its place among the calls), and its response the same id by name', () => {
    const out = toChat(
      gemini([
        user('go'),
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'g', response: { output: 'G' } } },
            { functionResponse: { name: 'f', response: { output: 'F' } } },
          ],
        },
      ]),
    );
    const assistant = out.messages[1] as { tool_calls: { id: string }[] };
    expect(assistant.tool_calls.map((call) => call.id)).toEqual(['call_0', 'call_1']);
    expect(out.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'G' },
      { role: 'tool', tool_call_id: 'call_0', content: 'F' },
    ]);
  });

  it('a made-up id never takes an id the session uses', () => {
    const out = toChat(
      gemini([
        user('go'),
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { id: 'call_0', name: 'g', args: {} } }] },
      ]),
    );
    const assistant = out.messages[1] as { tool_calls: { id: string }[] };
    expect(assistant.tool_calls.map((call) => call.id)).toEqual(['call_0_1', 'call_0']);
  });

  it('a tool message holds output when the response is exactly a text output, else the response as JSON', () => {
    const responses = [
      { output: 'plain' },
      { output: { n: 1 } },
      { output: 'x', error: 'y' },
      { output: '{"looks":"json"}' },
      { error: 'failed' },
    ];
    const out = toChat(
      gemini([
        user('go'),
        { role: 'model', parts: responses.map((_, i) => ({ functionCall: { id: `c${i}`, name: 'f', args: {} } })) },
        { role: 'user', parts: responses.map((response, i) => ({ functionResponse: { id: `c${i}`, name: 'f', response } })) },
      ]),
    );
    expect(out.messages.slice(2).map((m) => (m as { content: string }).content)).toEqual([
      'plain',
      '{"output":{"n":1}}',
      '{"output":"x","error":"y"}',
      '{"output":"{\\"looks\\":\\"json\\"}"}',
      '{"error":"failed"}',
    ]);
  });

  it("the user's text beside results follows the tool messages, even when it came first", () => {
    const out = toChat(
      gemini([
        user('go'),
        { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }] },
        { role: 'user', parts: [{ text: 'and then' }, { functionResponse: { id: 'a', name: 'f', response: { output: 'A' } } }] },
      ]),
    );
    expect(out.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'user', content: 'and then' },
    ]);
  });

  it('thought parts are left out and listed, without dropUnsupported; a message of thoughts alone disappears', () => {
    const result = convertSession(
      gemini([
        user('hi'),
        { role: 'model', parts: [{ text: 'hmm', thought: true }] },
        { role: 'model', parts: [{ text: 'plan', thought: true }, { text: 'Hello' }] },
      ]),
      'openai-chat',
    );
    expect((result.session as OpenAIChatSession).messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello' },
    ]);
    expect(result.dropped).toEqual([
      { path: 'history[1].parts[0]', what: 'thought' },
      { path: 'history[2].parts[0]', what: 'thought' },
    ]);
  });
});

describe('Gemini → openai-chat: tools and settings', () => {
  it('function declarations become function tools: parametersJsonSchema as is, Gemini `parameters` as JSON Schema', () => {
    const out = toChat(
      gemini([user('hi')], {
        tools: [
          {
            functionDeclarations: [
              { name: 'a', description: 'A', parametersJsonSchema: { type: 'object', properties: { x: { type: 'string' } } } },
            ],
          },
          {
            functionDeclarations: [
              {
                name: 'b',
                parameters: {
                  type: 'OBJECT',
                  properties: { n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['X'] } } },
                  required: ['n'],
                },
              },
              { name: 'c' },
            ],
          },
        ],
      }),
    );
    expect(out.tools).toEqual([
      {
        type: 'function',
        function: { name: 'a', description: 'A', parameters: { type: 'object', properties: { x: { type: 'string' } } } },
      },
      {
        type: 'function',
        function: {
          name: 'b',
          parameters: {
            type: 'object',
            properties: { n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string', enum: ['X'] } } },
            required: ['n'],
          },
        },
      },
      { type: 'function', function: { name: 'c' } },
    ]);
  });

  it.each<[Record<string, unknown>, unknown]>([
    [{ mode: 'AUTO' }, 'auto'],
    [{ mode: 'NONE' }, 'none'],
    [{ mode: 'ANY' }, 'required'],
    [
      { mode: 'ANY', allowedFunctionNames: ['f'] },
      { type: 'function', function: { name: 'f' } },
    ],
    [
      { mode: 'ANY', allowedFunctionNames: ['f', 'g'] },
      {
        type: 'allowed_tools',
        allowed_tools: {
          mode: 'required',
          tools: [
            { type: 'function', function: { name: 'f' } },
            { type: 'function', function: { name: 'g' } },
          ],
        },
      },
    ],
    [
      { mode: 'AUTO', allowedFunctionNames: ['g'] },
      { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'g' } }] } },
    ],
  ])('functionCallingConfig %j → tool_choice %j, and back', (calling, choice) => {
    const tools = [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }];
    const session = gemini([user('hi')], { tools, toolConfig: { functionCallingConfig: calling } });
    const out = toChat(session);
    expect(out.tool_choice).toEqual(choice);
    expect(toGemini(out).toolConfig).toEqual({ functionCallingConfig: calling });
  });

  it('generationConfig maps to the sampling fields', () => {
    const out = toChat(
      gemini([user('hi')], {
        generationConfig: {
          temperature: 0,
          topP: 0.5,
          maxOutputTokens: 100,
          stopSequences: ['X'],
          seed: 7,
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'object' },
        },
      }),
    );
    expect(out).toMatchObject({
      temperature: 0,
      top_p: 0.5,
      max_tokens: 100,
      stop: ['X'],
      seed: 7,
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } },
    });
  });

  it.each<[Record<string, unknown>, unknown]>([
    [{ responseMimeType: 'application/json' }, { type: 'json_object' }],
    [{ responseMimeType: 'text/plain' }, { type: 'text' }],
    [
      { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } },
      { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object', properties: { a: { type: 'string' } } } } },
    ],
  ])('generationConfig %j → response_format %j', (config, format) => {
    expect(toChat(gemini([user('hi')], { generationConfig: config })).response_format).toEqual(format);
  });
});

describe('Gemini → openai-chat: what cannot be converted is an error naming its path', () => {
  const call = { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }] };
  it.each<[string, GeminiSession, string]>([
    [
      'inlineData',
      gemini([{ role: 'user', parts: [{ text: 'see' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }]),
      'history[0].parts[1]: inlineData cannot be converted to openai-chat',
    ],
    [
      'fileData',
      gemini([user('read this'), { role: 'user', parts: [{ fileData: { fileUri: 'gs://x', mimeType: 'text/plain' } }] }]),
      'history[1].parts[0]: fileData cannot be converted to openai-chat',
    ],
    [
      'executableCode',
      gemini([user('go'), { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: '1' } }] }]),
      'history[1].parts[0]: executableCode cannot be converted to openai-chat',
    ],
    [
      'a thoughtSignature',
      gemini([user('go'), { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: 'sig' }] }]),
      'history[1].parts[0]: thoughtSignature cannot be converted to openai-chat',
    ],
    [
      'a field of a call',
      gemini([user('go'), { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {}, willContinue: true } }] }]),
      'history[1].parts[0].functionCall: willContinue cannot be converted to openai-chat',
    ],
    [
      'a field of a Content',
      gemini([{ role: 'user', parts: [{ text: 'x' }], extra: 1 }]),
      'history[0]: extra cannot be converted to openai-chat',
    ],
    [
      'a non-text system part',
      gemini([user('x')], { systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } }),
      'systemInstruction.parts[0]: inlineData cannot be converted to openai-chat',
    ],
    [
      'a system instruction role',
      gemini([user('x')], { systemInstruction: { role: 'system', parts: [{ text: 's' }] } }),
      'systemInstruction: role cannot be converted to openai-chat',
    ],
    [
      'a non-function tool',
      gemini([user('x')], { tools: [{ googleSearch: {} }] }),
      'tools[0]: googleSearch cannot be converted to openai-chat: only function declarations become openai-chat tools',
    ],
    [
      'a declaration field',
      gemini([user('x')], { tools: [{ functionDeclarations: [{ name: 'f', behavior: 'NON_BLOCKING' }] }] }),
      'tools[0].functionDeclarations[0]: behavior cannot be converted to openai-chat',
    ],
    [
      'a tool mode that does not map',
      gemini([user('x')], { toolConfig: { functionCallingConfig: { mode: 'VALIDATED' } } }),
      'toolConfig.functionCallingConfig: mode "VALIDATED" cannot be converted to openai-chat',
    ],
    [
      'retrievalConfig',
      gemini([user('x')], { toolConfig: { retrievalConfig: {} } }),
      'toolConfig: retrievalConfig cannot be converted to openai-chat',
    ],
    [
      'an unknown generationConfig key',
      gemini([user('x')], { generationConfig: { topK: 40 } }),
      'generationConfig: topK cannot be converted to openai-chat',
    ],
    [
      'thinkingConfig',
      gemini([user('x')], { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }),
      'generationConfig: thinkingConfig cannot be converted to openai-chat',
    ],
    [
      'another response type',
      gemini([user('x')], { generationConfig: { responseMimeType: 'text/x.enum' } }),
      'generationConfig: responseMimeType "text/x.enum" cannot be converted to openai-chat',
    ],
    [
      'a schema without JSON',
      gemini([user('x')], { generationConfig: { responseJsonSchema: { type: 'object' } } }),
      'generationConfig: responseJsonSchema cannot be converted to openai-chat',
    ],
    [
      'a response to no call',
      gemini([
        user('go'),
        { role: 'model', parts: [{ text: 'no calls' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
      ]),
      'history[2].parts[0]: functionResponse cannot be converted to openai-chat: "f" answers no open functionCall',
    ],
    [
      'a response after the user spoke',
      gemini([
        user('go'),
        call,
        { role: 'user', parts: [{ text: 'wait' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'a', name: 'f', response: {} } }] },
      ]),
      'history[3].parts[0]: functionResponse cannot be converted to openai-chat: "f" (id "a") answers no open functionCall',
    ],
    [
      'a call in a user message',
      gemini([{ role: 'user', parts: [{ text: 'x' }, { functionCall: { name: 'f', args: {} } }] }]),
      'history[0].parts[1]: functionCall cannot be converted to openai-chat: a user message cannot call a function',
    ],
  ])('%s', (_name, session, message) => {
    const err = errorOf(() => convertSession(session, 'openai-chat', { source: 's.json' }));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message.startsWith(`s.json: ${message}`)).toBe(true);
    expect(err.file).toBe('s.json');
    expect(err.droppable).toBe(true);
    // Dropped instead: listed, and the rest is a valid session.
    const dropped = convertSession(session, 'openai-chat', { dropUnsupported: true });
    expect(dropped.dropped.length).toBeGreaterThan(0);
    expect(message.startsWith(`${dropped.dropped[0]?.path}: ${dropped.dropped[0]?.what} `)).toBe(true);
    expect(parseSession(dropped.session)).toBe(dropped.session);
  });

  it('dropUnsupported leaves the unsupported field out and keeps the rest of its part', () => {
    const result = convertSession(
      gemini([user('go'), { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: 'sig' }] }]),
      'openai-chat',
      { dropUnsupported: true },
    );
    expect((result.session as OpenAIChatSession).messages[1]).toEqual({
      role: 'assistant',
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    expect(result.dropped).toEqual([{ path: 'history[1].parts[0]', what: 'thoughtSignature' }]);
  });

  it('errors no option works around', () => {
    const dup = gemini([
      user('go'),
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'a', name: 'f', response: {} } }] },
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }] },
    ]);
    const err = errorOf(() => convertSession(dup, 'openai-chat', { dropUnsupported: true }));
    expect(err.message).toBe(
      'history[3].parts[0].functionCall.id: the call id "a" is already used at history[1].parts[0].functionCall.id; openai-chat needs each tool call id once in a session',
    );
    expect(err.droppable).toBe(false);
    expect(errorOf(() => convertSession(gemini([]), 'openai-chat')).message).toMatch(
      /^history: an openai-chat session needs at least one message/,
    );
    expect(errorOf(() => convertSession(gemini([{ role: 'model', parts: [{ text: 't', thought: true }] }]), 'openai-chat')).path).toBe(
      'history',
    );
    const misnamed = gemini([
      user('go'),
      { role: 'model', parts: [{ functionCall: { id: 'a', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'a', name: 'g', response: {} } }] },
    ]);
    expect(errorOf(() => convertSession(misnamed, 'openai-chat')).message).toBe(
      'history[2].parts[0].functionResponse.name: "g" answers the call "a" of "f"; a tool message takes its function\'s name from the call',
    );
    expect(errorOf(() => convertSession(gemini([user('x')]), 'gemini', { source: 'g.json' })).message).toBe(
      'g.json: is already a gemini session; nothing to convert',
    );
  });

  it('an Anthropic Messages session converts to every other shape through the hub, and an AI SDK session back', () => {
    const anthropic: AnthropicMessagesSession = {
      format: 'anthropic-messages',
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(convertSession(anthropic, 'gemini').session).toEqual({
      model: 'claude-sonnet-4-5',
      generationConfig: { maxOutputTokens: 1024 },
      history: [{ role: 'user', parts: [{ text: 'hi' }] }],
    });
    expect(convertSession(anthropic, 'openai-chat').session).toEqual({
      format: 'openai-chat',
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 1024,
    });
    expect(convertSession(anthropic, 'openai-responses').session).toEqual({
      format: 'openai-responses',
      model: 'claude-sonnet-4-5',
      input: [{ role: 'user', content: 'hi' }],
      max_output_tokens: 1024,
    });
    const aiSdk = convertSession(anthropic, 'ai-sdk');
    expect(aiSdk.session).toEqual({
      format: 'ai-sdk',
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'hi' }],
      maxOutputTokens: 1024,
    });
    expect(convertSession(aiSdk.session, 'anthropic-messages').session).toEqual({
      ...anthropic,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('what only Anthropic or the AI SDK has is an error naming its path in the source, or left out and listed', () => {
    const anthropic = {
      format: 'anthropic-messages',
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    } as never;
    expect(errorOf(() => convertSession(anthropic, 'openai-chat', { source: 'a.json' })).message).toBe(
      'a.json: messages[0].content[0]: cache_control cannot be converted to openai-chat',
    );
    const dropped = convertSession(anthropic, 'openai-chat', { dropUnsupported: true });
    expect(dropped.dropped).toEqual([{ path: 'messages[0].content[0]', what: 'cache_control' }]);
    expect((dropped.session as OpenAIChatSession).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const aiSdk = {
      format: 'ai-sdk',
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi', providerOptions: { openai: { user: 'u' } } }],
      presencePenalty: 0.5,
    } as never;
    expect(errorOf(() => convertSession(aiSdk, 'gemini', { source: 's.json' })).message).toBe(
      's.json: messages[0]: providerOptions cannot be converted to gemini',
    );
    expect(convertSession(aiSdk, 'gemini', { dropUnsupported: true }).dropped).toEqual([
      { path: 'messages[0]', what: 'providerOptions' },
      { path: '', what: 'presencePenalty' },
    ]);
  });

  it('an invalid input session is an InputError from validation, not a ConversionError', () => {
    const bad = { model: 'm', history: [{ role: 'assistant', parts: [{ text: 'x' }] }] } as unknown as GeminiSession;
    let caught: unknown;
    try {
      convertSession(bad, 'openai-chat', { source: 'bad.json' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect(caught).not.toBeInstanceOf(ConversionError);
    expect((caught as Error).message).toBe('bad.json: history[0].role: must be "user" or "model"');
    expect(() => convertSession(gemini([user('x')]), 'anthropic' as never)).toThrow(TypeError);
  });

  it('a converted value the target refuses is caught by validating the result', () => {
    const err = errorOf(() =>
      convertSession(gemini([user('x')], { generationConfig: { temperature: 'hot' } }), 'openai-chat', { source: 's.json' }),
    );
    expect(err.message).toBe(
      's.json: cannot be converted to openai-chat: temperature of the converted session must be a finite number, not a string',
    );
  });
});

describe('openai-chat → Gemini', () => {
  const calls = {
    role: 'assistant',
    content: 'checking',
    tool_calls: [
      { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
      { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
    ],
  };

  it('leading system and developer messages become the system instruction', () => {
    const out = toGemini(
      chat([
        { role: 'system', content: 'A' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'B' },
            { type: 'text', text: 'C' },
          ],
        },
        { role: 'user', content: 'hi' },
      ]),
    );
    expect(out.systemInstruction).toEqual({ parts: [{ text: 'A' }, { text: 'B' }, { text: 'C' }] });
    expect(out.history).toEqual([user('hi')]);
  });

  it('tool messages become one user Content of functionResponses named by their call; the next user text joins it', () => {
    const out = toGemini(
      chat([
        { role: 'user', content: 'go' },
        calls,
        { role: 'tool', tool_call_id: 'b', content: 'plain text' },
        { role: 'tool', tool_call_id: 'a', content: '{"output":{"n":1}}' },
        { role: 'user', content: [{ type: 'text', text: 'more' }] },
        { role: 'assistant', content: 'done' },
      ]),
    );
    expect(out.history).toEqual([
      user('go'),
      {
        role: 'model',
        parts: [
          { text: 'checking' },
          { functionCall: { id: 'a', name: 'f', args: { x: 1 } } },
          { functionCall: { id: 'b', name: 'g', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'b', name: 'g', response: { output: 'plain text' } } },
          { functionResponse: { id: 'a', name: 'f', response: { output: { n: 1 } } } },
          { text: 'more' },
        ],
      },
      { role: 'model', parts: [{ text: 'done' }] },
    ]);
  });

  it('a tool message of text parts is read as their joined text', () => {
    const out = toGemini(
      chat([
        { role: 'user', content: 'go' },
        calls,
        {
          role: 'tool',
          tool_call_id: 'a',
          content: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
      ]),
    );
    expect(out.history[2]).toEqual({ role: 'user', parts: [{ functionResponse: { id: 'a', name: 'f', response: { output: 'xy' } } }] });
  });

  it('tools, tool_choice and sampling fields map back; null fields are left out', () => {
    const out = toGemini(
      chat([{ role: 'user', content: 'hi' }], {
        tools: [
          { type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' }, strict: false } },
          { type: 'function', function: { name: 'g' } },
        ],
        tool_choice: { type: 'function', function: { name: 'g' } },
        temperature: null,
        top_p: 1,
        max_completion_tokens: 50,
        stop: 'END',
        seed: 3,
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } },
      }),
    );
    expect(out).toEqual({
      model: 'gpt-4.1',
      tools: [{ functionDeclarations: [{ name: 'f', description: 'F', parametersJsonSchema: { type: 'object' } }, { name: 'g' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
      generationConfig: {
        topP: 1,
        maxOutputTokens: 50,
        stopSequences: ['END'],
        seed: 3,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
      },
      history: [user('hi')],
    });
    expect(toGemini(chat([{ role: 'user', content: 'hi' }], { response_format: { type: 'json_object' } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect(toGemini(chat([{ role: 'user', content: 'hi' }], { response_format: { type: 'text' } })).generationConfig).toEqual({
      responseMimeType: 'text/plain',
    });
  });

  it.each<[string, OpenAIChatSession, string]>([
    [
      'a mid-conversation developer message',
      chat([
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'now be terse' },
      ]),
      'messages[1]: a "developer" message after the conversation has started cannot be converted to gemini',
    ],
    [
      'an image',
      chat([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
      ]),
      'messages[0].content[1]: image_url cannot be converted to gemini',
    ],
    [
      'audio input',
      chat([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] }]),
      'messages[0].content[0]: input_audio cannot be converted to gemini',
    ],
    [
      'a file',
      chat([{ role: 'user', content: [{ type: 'file', file: { file_id: 'f1' } }] }]),
      'messages[0].content[0]: file cannot be converted to gemini',
    ],
    [
      'a refusal',
      chat([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'ok', refusal: 'no' },
      ]),
      'messages[1]: refusal cannot be converted to gemini',
    ],
    ['a name', chat([{ role: 'user', content: 'hi', name: 'ann' }]), 'messages[0]: name cannot be converted to gemini'],
    [
      'strict tools',
      chat([{ role: 'user', content: 'hi' }], { tools: [{ type: 'function', function: { name: 'f', strict: true } }] }),
      'tools[0].function: strict cannot be converted to gemini',
    ],
    [
      'parallel_tool_calls',
      chat([{ role: 'user', content: 'hi' }], { parallel_tool_calls: false }),
      'parallel_tool_calls cannot be converted to gemini',
    ],
    [
      'reasoning_effort',
      chat([{ role: 'user', content: 'hi' }], { reasoning_effort: 'low' }),
      'reasoning_effort cannot be converted to gemini',
    ],
    [
      'both token limits',
      chat([{ role: 'user', content: 'hi' }], { max_tokens: 1, max_completion_tokens: 2 }),
      'max_completion_tokens cannot be converted to gemini',
    ],
    [
      'a schema description',
      chat([{ role: 'user', content: 'hi' }], {
        response_format: { type: 'json_schema', json_schema: { name: 'a', description: 'd', schema: {} } },
      }),
      'response_format.json_schema: description cannot be converted to gemini',
    ],
  ])('%s is an error naming its path, or dropped and listed', (_name, session, message) => {
    const err = errorOf(() => convertSession(session, 'gemini', { source: 'c.json' }));
    expect(err.message.startsWith(`c.json: ${message}`)).toBe(true);
    const dropped = convertSession(session, 'gemini', { dropUnsupported: true });
    expect(dropped.dropped).toHaveLength(1);
    expect(parseSession(dropped.session)).toBe(dropped.session);
  });

  it('arguments that are not a JSON object are an error naming the path, whatever the options', () => {
    const withArgs = (args: string) =>
      chat([
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: args } }] },
      ]);
    const invalid = errorOf(() => convertSession(withArgs('{"x":'), 'gemini', { dropUnsupported: true }));
    expect(invalid.path).toBe('messages[1].tool_calls[0].function.arguments');
    expect(invalid.rule).toMatch(/^is not valid JSON \(/);
    expect(errorOf(() => convertSession(withArgs('[1]'), 'gemini')).message).toBe(
      "messages[1].tool_calls[0].function.arguments: must be the JSON text of an object: a Gemini call's args are a JSON object",
    );
  });
});

describe("Gemini → anthropic-messages (after Qwen Code's Anthropic converter)", () => {
  type Out = {
    format: string;
    system?: unknown;
    tools?: unknown[];
    tool_choice?: unknown;
    messages: { role: string; content: Record<string, unknown>[] }[];
    max_tokens: number;
    thinking?: unknown;
    stop_sequences?: unknown;
  };
  const toAnthropic = (session: GeminiSession, options?: ConvertOptions) => {
    const result = convertSession(session, 'anthropic-messages', options);
    expect(parseSession(result.session)).toBe(result.session);
    return { out: result.session as unknown as Out, result };
  };
  const call = (name: string, args: Record<string, unknown> = {}, id?: string) => ({ functionCall: { ...(id ? { id } : {}), name, args } });
  const response = (name: string, body: Record<string, unknown>, id?: string) => ({
    functionResponse: { ...(id ? { id } : {}), name, response: body },
  });

  it('system text joined with a newline; calls become tool_use, responses tool_result (output, else error, else JSON), results first in a merged user turn', () => {
    const { out, result } = toAnthropic(
      gemini(
        [
          user('Find the fee.'),
          { role: 'model', parts: [{ text: 'Looking.' }, call('grep', { q: 'fee' }, 'toolu_A1'), call('read_file', { path: 'a.ts' })] },
          { role: 'user', parts: [{ text: 'Also this.' }, response('grep', { output: 'a.ts:1' }, 'toolu_A1')] },
          { role: 'user', parts: [response('read_file', { error: 'ENOENT' })] },
          { role: 'model', parts: [{ text: 'Done.' }] },
        ],
        {
          systemInstruction: { parts: [{ text: 'A' }, { text: 'B' }] },
          tools: [
            {
              functionDeclarations: [
                { name: 'grep', description: 'Search' },
                { name: 'read_file', parametersJsonSchema: { properties: { path: { type: 'string' } } } },
              ],
            },
          ],
        },
      ),
    );
    expect(Object.keys(out)).toEqual(['format', 'model', 'system', 'tools', 'messages', 'max_tokens']);
    expect(out.system).toBe('A\nB');
    expect(out.tools).toEqual([
      { name: 'grep', description: 'Search', input_schema: { type: 'object', properties: {} } },
      { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
    ]);
    expect(out.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(out.messages[1]?.content).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_A1', name: 'grep', input: { q: 'fee' } },
      { type: 'tool_use', id: 'tool_1', name: 'read_file', input: { path: 'a.ts' } },
    ]);
    expect(out.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_A1', content: 'a.ts:1' },
      { type: 'tool_result', tool_use_id: 'tool_1', content: 'ENOENT' },
      { type: 'text', text: 'Also this.' },
    ]);
    expect(out.max_tokens).toBe(8192);
    expect(result.notes).toEqual([
      "max_tokens 8192: the session sets no maxOutputTokens (forkpool's choice; the Messages API requires one)",
    ]);
    expect(result.dropped).toEqual([]);
  });

  it('thought parts: a model thought with its signature becomes a thinking block, others are left out and listed; empty and whitespace text likewise', () => {
    const { out, result } = toAnthropic(
      gemini([
        { role: 'user', parts: [{ text: 'q' }, { text: 'hidden', thought: true }] },
        {
          role: 'model',
          parts: [
            { text: 'plan', thought: true, thoughtSignature: 'sig1' },
            { text: 'no sig', thought: true },
            { text: '\n\n' },
            { text: '' },
            { text: 'answer' },
          ],
        },
      ]),
    );
    expect(out.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 'sig1' },
      { type: 'text', text: 'answer' },
    ]);
    expect(result.dropped).toEqual([
      { path: 'history[0].parts[1]', what: 'thought' },
      { path: 'history[1].parts[1]', what: 'thought' },
      { path: 'history[1].parts[2]', what: 'whitespace-only text' },
      { path: 'history[1].parts[3]', what: 'empty text' },
    ]);
  });

  it('settings: maxOutputTokens, stopSequences, a thinking budget, tool choice; a made-up id never takes one the session uses', () => {
    const { out } = toAnthropic(
      gemini(
        [
          user('q'),
          { role: 'model', parts: [call('f', {}, 'bad id!'), call('f', {}, 'tool_0')] },
          { role: 'user', parts: [response('f', {}, 'bad id!'), response('f', { x: 1 }, 'tool_0')] },
        ],
        {
          tools: [{ functionDeclarations: [{ name: 'f' }] }],
          toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
          generationConfig: { maxOutputTokens: 4096, stopSequences: ['END'], thinkingConfig: { thinkingBudget: 2048 } },
        },
      ),
    );
    expect(out.tool_choice).toEqual({ type: 'auto' });
    const named = toAnthropic(
      gemini([user('q')], {
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      }),
    );
    expect(named.out.tool_choice).toEqual({ type: 'tool', name: 'f' });
    expect(out).toMatchObject({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, stop_sequences: ['END'] });
    expect(out.messages[1]?.content.map((b) => b.id)).toEqual(['tool_0_1', 'tool_0']);
    expect(out.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'tool_0_1', content: '{}' },
      { type: 'tool_result', tool_use_id: 'tool_0', content: '{"x":1}' },
    ]);
  });

  it('what Anthropic cannot take is an error naming its path, or left out and listed with dropUnsupported; an openai-chat session converts too', () => {
    const source = gemini([user('q'), { role: 'model', parts: [{ text: 'a', thoughtSignature: 'gemini-sig' }] }], {
      generationConfig: { temperature: 0.2, maxOutputTokens: 100 },
    });
    const err = errorOf(() => convertSession(source, 'anthropic-messages', { source: 'g.json' }));
    expect(err.message).toBe('g.json: history[1].parts[0]: thoughtSignature cannot be converted to anthropic-messages');
    expect(err.droppable).toBe(true);
    const { result } = toAnthropic(source, { dropUnsupported: true });
    expect(result.dropped).toEqual([
      { path: 'history[1].parts[0]', what: 'thoughtSignature' },
      { path: 'generationConfig', what: 'temperature' },
    ]);
    expect(convertSession(chat([{ role: 'user', content: 'hi' }]), 'anthropic-messages').session).toMatchObject({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      max_tokens: 8192,
    });
  });

  it('a fork of the converted session sees the source conversation (local simulator, Anthropic routes)', async () => {
    const { ForkEngine } = await import('../src/index.js');
    const { out } = toAnthropic(
      gemini(
        [
          user('Code word MARKER-CV9A.'),
          { role: 'model', parts: [call('f', {}, 'c1')] },
          { role: 'user', parts: [response('f', { output: 'FEE = 7' })] },
          { role: 'model', parts: [{ text: 'ok' }] },
        ],
        { tools: [{ functionDeclarations: [{ name: 'f' }] }] },
      ),
    );
    const engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1 });
    try {
      const [fork] = await engine
        .fanOut(engine.freeze(out as unknown as ParentSession), [{ id: 'r', directive: 'RECALL MARKER-[0-9A-Z]{4}|FEE = [0-9]' }])
        .results();
      expect(fork?.status === 'completed' ? fork.text : fork?.status).toBe('RECALL MARKER-[0-9A-Z]{4}|FEE = [0-9]: MARKER-CV9A, FEE = 7');
    } finally {
      await engine.close();
    }
  });
});
