// Internal: parseAiSdkSession, aiSdkSessionSchema() and the types of src/shapes/ai-sdk/schema.ts (a parent session in the Vercel AI SDK's shape); parseSession is their public face.
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { type JSONSchema7, type ModelMessage, generateText, jsonSchema, modelMessageSchema, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../src/local-server/index.js';
import {
  aiSdkSessionSchema,
  parseAiSdkSession,
  type AiSdkMessage,
  type AiSdkSession,
  type AiSdkTool,
} from '../src/shapes/ai-sdk/schema.js';
import { errorOf } from './support/input-error.js';
import { typeErrorsOf } from './support/type-check.js';

/** A session of one user message followed by `messages`, with `extra` top-level fields. */
function session(messages: unknown[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: 'ai-sdk', model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }, ...messages], ...extra };
}

const call = (id: string, name = 'read_file', more: Record<string, unknown> = {}) => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: name,
  input: { path: 'a' },
  ...more,
});
const result = (id: string, name = 'read_file', output: unknown = { type: 'text', value: 'ok' }) => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: name,
  output,
});
const text = (t: string) => ({ type: 'text', text: t });
const assistant = (...content: unknown[]) => ({ role: 'assistant', content });
const toolMessage = (...content: unknown[]) => ({ role: 'tool', content });
const user = (content: unknown = 'next') => ({ role: 'user', content });

const READ_FILE_SCHEMA: JSONSchema7 = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
  additionalProperties: false,
};
const tools = {
  read_file: { description: 'Reads a file', inputSchema: READ_FILE_SCHEMA },
  grep: { inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } }, strict: true },
};

/** The AI SDK's own runtime check of a prompt's messages (what generateText runs before a call). */
const sdkAccepts = (messages: unknown) => modelMessageSchema.array().safeParse(messages).success;

describe('parseAiSdkSession: valid sessions come back as the very object passed', () => {
  it('a realistic session: system, text, two calls and their results, reasoning, an image URL and a file', () => {
    const realistic = {
      format: 'ai-sdk',
      model: 'gpt-4o',
      system: 'You are a careful coding agent.',
      messages: [
        { role: 'user', content: 'Find where the config is read.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading two files.' },
            { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'src/config.ts' } },
            { type: 'tool-call', toolCallId: 'call_2', toolName: 'grep', input: { pattern: 'loadConfig' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_1',
              toolName: 'read_file',
              output: { type: 'text', value: 'export function loadConfig() {}' },
            },
            {
              type: 'tool-result',
              toolCallId: 'call_2',
              toolName: 'grep',
              output: { type: 'json', value: { matches: ['src/main.ts:3'] } },
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'main.ts calls loadConfig.', providerOptions: { anthropic: { signature: 'EqQBCkgI' } } },
            { type: 'text', text: 'It is read in src/main.ts.' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare it with this screenshot and the spec.' },
            { type: 'image', image: 'https://example.com/screenshot.png' },
            { type: 'file', data: 'JVBERi0xLjQK', mediaType: 'application/pdf', filename: 'spec.pdf' },
          ],
        },
      ],
      tools,
      toolChoice: 'auto',
      maxOutputTokens: 4096,
      temperature: 0,
    };
    const before = JSON.stringify(realistic);
    expect(parseAiSdkSession(realistic, 's.json')).toBe(realistic);
    expect(JSON.stringify(realistic)).toBe(before);
    expect(aiSdkSessionSchema().safeParse(realistic).success).toBe(true);
    expect(sdkAccepts(realistic.messages)).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    [
      'a parent mid-turn: the last assistant message with calls unanswered',
      session([assistant(text('reading'), call('c1'), call('c2', 'grep'))], { tools }),
    ],
    [
      'results of some of the last calls (the fork rules answer the rest)',
      session([assistant(call('c1'), call('c2', 'grep')), toolMessage(result('c1'))]),
    ],
    [
      'results spread over consecutive tool messages',
      session([assistant(call('c1'), call('c2', 'grep')), toolMessage(result('c2', 'grep')), toolMessage(result('c1')), user()]),
    ],
    [
      'a provider-executed call answered in its own assistant message',
      session([
        assistant(
          call('ws1', 'web_search', { input: { query: 'x' }, providerExecuted: true }),
          result('ws1', 'web_search', { type: 'json', value: [{ url: 'https://a' }] }),
          text('found'),
        ),
        user(),
      ]),
    ],
    [
      'a provider-executed call answered in a later assistant message',
      session([assistant(call('ws1', 'web_search', { providerExecuted: true })), assistant(result('ws1', 'web_search')), user()]),
    ],
    [
      'a provider-executed call without a result',
      session([assistant(call('ws1', 'web_search', { providerExecuted: true }), text('done')), user()]),
    ],
    [
      'a tool approval, approved then run',
      session([
        assistant(call('c1'), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }),
        toolMessage({ type: 'tool-approval-response', approvalId: 'a1', approved: true, reason: 'fine' }),
        toolMessage(result('c1')),
        assistant(text('read it')),
        user(),
      ]),
    ],
    [
      'a tool approval, denied',
      session([
        assistant(call('c1'), {
          type: 'tool-approval-request',
          approvalId: 'a1',
          toolCallId: 'c1',
          signature: 'hmac',
          inputSchemaInput: { path: 'a' },
        }),
        toolMessage(
          { type: 'tool-approval-response', approvalId: 'a1', approved: false },
          result('c1', 'read_file', { type: 'execution-denied', reason: 'no' }),
        ),
        user(),
      ]),
    ],
    [
      'a pending approval (a parent waiting for the user)',
      session([assistant(call('c1'), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' })]),
    ],
    [
      'system messages in messages, beside "system" and mid-conversation',
      { ...session([assistant(text('a')), { role: 'system', content: 'Be brief.' }, user()]), system: 'You are terse.' },
    ],
    [
      'a system message leading messages, without "system"',
      { format: 'ai-sdk', model: 'm', messages: [{ role: 'system', content: 'sys' }, user('hi')] },
    ],
    [
      '"system" as one system message',
      session([], { system: { role: 'system', content: 'sys', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } }),
    ],
    [
      '"system" as an array of system messages',
      session([], {
        system: [
          { role: 'system', content: 'a' },
          { role: 'system', content: 'b' },
        ],
      }),
    ],
    [
      'every tool output kind',
      session([
        assistant(...['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => call(id))),
        toolMessage(
          result('c1', 'read_file', { type: 'text', value: 'ok', providerOptions: { openai: { a: 1 } } }),
          result('c2', 'read_file', { type: 'json', value: null }),
          result('c3', 'read_file', { type: 'execution-denied' }),
          result('c4', 'read_file', { type: 'error-text', value: 'ENOENT' }),
          result('c5', 'read_file', { type: 'error-json', value: { code: 'ENOENT' } }),
          result('c6', 'read_file', {
            type: 'content',
            value: [
              { type: 'text', text: 'a' },
              { type: 'media', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'file-data', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
              { type: 'file-url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
              { type: 'file-id', fileId: 'file_1' },
              { type: 'file-id', fileId: { openai: 'file_1', anthropic: 'file_2' } },
              { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'image-url', url: 'https://example.com/a.png' },
              { type: 'image-file-id', fileId: 'file_3' },
              { type: 'custom', providerOptions: { anthropic: { type: 'tool-reference' } } },
            ],
          }),
        ),
      ]),
    ],
    [
      'images as base64 and a data URL, a file the model made, empty content',
      session([
        assistant(),
        user([
          { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' },
          { type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=' },
        ]),
        assistant({ type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' }),
        user([]),
        { role: 'assistant', content: '' },
      ]),
    ],
    [
      'providerOptions on messages and parts, every setting, a named tool choice',
      {
        ...session([
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'a', providerOptions: { openai: { itemId: 'msg_1' } } }],
            providerOptions: { openai: {} },
          },
          { role: 'user', content: 'b', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } },
        ]),
        tools,
        toolChoice: { type: 'tool', toolName: 'grep' },
        providerOptions: {
          openai: { parallelToolCalls: false, reasoningEffort: 'low' },
          anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } },
        },
        maxOutputTokens: 1,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        presencePenalty: 0,
        frequencyPenalty: -0.5,
        stopSequences: ['END'],
        seed: 7,
      },
    ],
    ['toolChoice "none" and "required"', session([], { tools, toolChoice: 'required' })],
  ])('%s', (_name, input) => {
    expect(parseAiSdkSession(input)).toBe(input);
    // The AI SDK's own runtime schema takes these messages too.
    expect(sdkAccepts(input.messages)).toBe(true);
  });
});

const UNANSWERED = (id: string) =>
  `the tool call "${id}" is not answered: a "tool" message right after its assistant message must hold its tool-result (a call may stay unanswered only in the last assistant message, with nothing but tool messages after it)`;
const FUNCTION = "is a function, not data: forkpool runs each fork's steps itself (its own turn limits); leave it out";

describe('parseAiSdkSession: each rule refused with its path and its words', () => {
  it.each<[string, unknown, string]>([
    // The session.
    ['an array', [], 's.json: a session must be a JSON object ({ "format": "ai-sdk", "model", "messages", … })'],
    ['no format', { model: 'm', messages: [user()] }, 's.json: format: is required ("ai-sdk" for a session in the Vercel AI SDK\'s shape)'],
    ['another format', session([], { format: 'openai-chat' }), 's.json: format: must be "ai-sdk"'],
    ['no model', { format: 'ai-sdk', messages: [user()] }, "s.json: model: is required (the model's id)"],
    ['an empty model', session([], { model: '' }), "s.json: model: the model's id must not be empty"],
    [
      'a model object',
      session([], { model: { provider: 'openai', modelId: 'gpt-4o' } }),
      "s.json: model: must be the model's id (a string), not an object: the provider descriptor makes the AI SDK model",
    ],
    [
      'an unknown field',
      session([], { extra: 1 }),
      's.json: extra: is not a field of an ai-sdk session (allowed: format, model, system, messages, tools, toolChoice, providerOptions, maxOutputTokens, temperature, topP, topK, presencePenalty, frequencyPenalty, stopSequences, seed)',
    ],
    [
      'prompt instead of messages',
      { format: 'ai-sdk', model: 'm', prompt: 'hi' },
      's.json: prompt: is not an ai-sdk session field: the conversation goes in "messages" (a prompt string is a { "role": "user" } message)',
    ],
    ['maxTokens', session([], { maxTokens: 100 }), 's.json: maxTokens: is the AI SDK 4 name: AI SDK 5+ calls it "maxOutputTokens"'],
    [
      'an apiKey',
      session([], { apiKey: 'sk-…' }),
      's.json: apiKey: is not part of a session: the provider descriptor names the environment variable that holds the API key (a session file carries no secrets)',
    ],
    [
      'headers',
      session([], { headers: { 'x-a': '1' } }),
      's.json: headers: is not part of a session: request headers belong to the provider descriptor',
    ],
    [
      'maxRetries',
      session([], { maxRetries: 3 }),
      "s.json: maxRetries: is not part of a session: retries are forkpool's (it retries each model call itself)",
    ],
    [
      'abortSignal',
      session([], { abortSignal: {} }),
      's.json: abortSignal: is not part of a session: forkpool cancels its own calls (and a signal is not data)',
    ],
    ['stopWhen', session([], { stopWhen: {} }), `s.json: stopWhen: ${FUNCTION}`],
    ['prepareStep', session([], { prepareStep: {} }), `s.json: prepareStep: ${FUNCTION}`],
    ['no messages', { format: 'ai-sdk', model: 'm' }, 's.json: messages: is required'],
    ['no message', session([], { messages: [] }), 's.json: messages: must hold at least one message'],
    [
      'messages not an array',
      session([], { messages: { role: 'user' } }),
      's.json: messages: must be an array of messages ({ "role", "content" })',
    ],
    [
      'a number as system',
      session([], { system: 3 }),
      's.json: system: must be a string, a system message or an array of system messages, not the number 3',
    ],
    [
      'a user message as system',
      session([], { system: [{ role: 'user', content: 'x' }] }),
      's.json: system[0].role: must be "system" (this field takes system messages only)',
    ],
    [
      'a system message of parts',
      session([], { system: { role: 'system', content: [text('x')] } }),
      's.json: system.content: must be a string (a system message holds text only), not an array',
    ],
    // Settings.
    ['a string temperature', session([], { temperature: '0.2' }), 's.json: temperature: must be a number, not a string'],
    ['a null topP', session([], { topP: null }), 's.json: topP: must be a number, not null'],
    ['maxOutputTokens 0', session([], { maxOutputTokens: 0 }), 's.json: maxOutputTokens: must be a positive integer'],
    ['a fractional seed', session([], { seed: 1.5 }), 's.json: seed: must be an integer'],
    ['a number stop sequence', session([], { stopSequences: ['a', 1] }), 's.json: stopSequences[1]: must be a string, not the number 1'],
    [
      'providerOptions not an object',
      session([], { providerOptions: 'openai' }),
      's.json: providerOptions: must be a JSON object of provider names to their options ({ "openai": { … } }), not a string',
    ],
    [
      "a provider's options not an object",
      session([], { providerOptions: { openai: [1] } }),
      's.json: providerOptions.openai: the options of the provider "openai" must be a JSON object, not an array',
    ],
    // Tools and tool choice.
    [
      'tools as an array',
      session([], { tools: [{ name: 'read_file', inputSchema: READ_FILE_SCHEMA }] }),
      's.json: tools: must be a JSON object keyed by tool name ({ "read_file": { "description", "inputSchema" } }): the AI SDK\'s tools are an object, not an array',
    ],
    [
      'a tool that is not an object',
      session([], { tools: { read_file: 'x' } }),
      's.json: tools.read_file: must be a JSON object, not a string',
    ],
    [
      'a tool without inputSchema',
      session([], { tools: { read_file: { description: 'd' } } }),
      's.json: tools.read_file.inputSchema: is required (the JSON Schema of the tool\'s input: { "type": "object", … })',
    ],
    [
      'an inputSchema without type',
      session([], { tools: { read_file: { inputSchema: { properties: {} } } } }),
      's.json: tools.read_file.inputSchema.type: is required ("object": a tool\'s input is a JSON object)',
    ],
    [
      'an inputSchema of a string',
      session([], { tools: { read_file: { inputSchema: { type: 'string' } } } }),
      's.json: tools.read_file.inputSchema.type: must be "object" (a tool\'s input is a JSON object), not "string"',
    ],
    [
      'a serialized jsonSchema()',
      session([], { tools: { read_file: { inputSchema: { jsonSchema: READ_FILE_SCHEMA } } } }),
      's.json: tools.read_file.inputSchema: is an AI SDK Schema object as JSON (what jsonSchema() or zodSchema() return): give the plain JSON Schema (its "jsonSchema")',
    ],
    [
      'AI SDK 4 parameters',
      session([], { tools: { read_file: { parameters: READ_FILE_SCHEMA } } }),
      's.json: tools.read_file.parameters: is the AI SDK 4 name: AI SDK 5+ calls a tool\'s JSON Schema "inputSchema"',
    ],
    [
      'an execute function',
      session([], { tools: { read_file: { inputSchema: READ_FILE_SCHEMA, execute: {} } } }),
      "s.json: tools.read_file.execute: is a function, not data: a session declares a tool by its JSON Schema, and forkpool's tools module runs it",
    ],
    [
      'an unknown tool field',
      session([], { tools: { read_file: { inputSchema: READ_FILE_SCHEMA, title: 'x' } } }),
      's.json: tools.read_file.title: is not a field of a tool (allowed: description, inputSchema, providerOptions, strict)',
    ],
    [
      'a tool name with a dot',
      session([], { tools: { 'fs.read': { inputSchema: { type: 'object' } } } }),
      's.json: tools["fs.read"]: "fs.read" is not a tool name every provider takes: at most 64 letters, digits, _ and -, starting with a letter or _',
    ],
    [
      'a tool name of 65 characters',
      session([], { tools: { [`t${'x'.repeat(64)}`]: { inputSchema: { type: 'object' } } } }),
      `s.json: tools.t${'x'.repeat(64)}: "t${'x'.repeat(64)}" is not a tool name every provider takes: at most 64 letters, digits, _ and -, starting with a letter or _`,
    ],
    [
      'a tool name starting with a digit',
      session([], { tools: { '1read': { inputSchema: { type: 'object' } } } }),
      's.json: tools["1read"]: "1read" is not a tool name every provider takes: at most 64 letters, digits, _ and -, starting with a letter or _',
    ],
    [
      'a toolChoice naming an undeclared tool',
      session([], { tools, toolChoice: { type: 'tool', toolName: 'write_file' } }),
      's.json: toolChoice.toolName: names the tool "write_file", which "tools" does not declare',
    ],
    [
      'a toolChoice naming a tool without tools',
      session([], { toolChoice: { type: 'tool', toolName: 'grep' } }),
      's.json: toolChoice.toolName: names the tool "grep", which "tools" does not declare',
    ],
    [
      'toolChoice "any"',
      session([], { tools, toolChoice: 'any' }),
      's.json: toolChoice: "any" is Anthropic\'s: the AI SDK\'s is "required"',
    ],
    [
      'an unknown toolChoice',
      session([], { tools, toolChoice: 'always' }),
      's.json: toolChoice: must be "auto", "none", "required" or { "type": "tool", "toolName" }, not "always"',
    ],
    [
      "OpenAI's named toolChoice",
      session([], { tools, toolChoice: { type: 'function', function: { name: 'grep' } } }),
      's.json: toolChoice.type: is OpenAI\'s: the AI SDK names a tool with { "type": "tool", "toolName" }',
    ],
    // Messages.
    ['a message that is a string', session(['hi']), 's.json: messages[1]: a message must be a JSON object, not a string'],
    [
      'a message without role',
      session([{ content: 'x' }]),
      's.json: messages[1].role: is required (allowed: "system", "user", "assistant" or "tool")',
    ],
    [
      'an unknown role',
      session([{ role: 'bot', content: 'x' }]),
      's.json: messages[1].role: must be "system", "user", "assistant" or "tool", not "bot"',
    ],
    [
      'the developer role',
      session([{ role: 'developer', content: 'x' }]),
      's.json: messages[1].role: the "developer" role is OpenAI\'s: use a "system" message (or the top-level "system")',
    ],
    [
      'an unknown message field',
      session([{ role: 'user', content: 'x', name: 'bob' }]),
      's.json: messages[1].name: is not a field of a "user" message (allowed: role, content, providerOptions)',
    ],
    [
      'a UIMessage',
      session([{ id: 'm1', role: 'user', parts: [text('x')] }]),
      's.json: messages[1].id: is not a ModelMessage field (UIMessages carry "id" and "parts": convert them with convertToModelMessages())',
    ],
    [
      'parts instead of content',
      session([{ role: 'user', parts: [text('x')] }]),
      's.json: messages[1].parts: is a UIMessage field (useChat): a session holds ModelMessages, { "role", "content" }; convert UI messages with convertToModelMessages()',
    ],
    [
      "OpenAI's tool_calls",
      session([{ role: 'assistant', content: null, tool_calls: [] }]),
      's.json: messages[1].tool_calls: is OpenAI\'s: an AI SDK call is a { "type": "tool-call" } part in the assistant message\'s "content"',
    ],
    [
      'user content of a number',
      session([{ role: 'user', content: 3 }]),
      's.json: messages[1].content: must be a string or an array of text, image and file parts, not the number 3',
    ],
    ['no content', session([{ role: 'assistant' }]), 's.json: messages[1].content: is required'],
    [
      'a part that is a string',
      session([user(['x'])]),
      's.json: messages[1].content[0]: a content part must be a JSON object, not a string',
    ],
    [
      'a part without type',
      session([user([{ text: 'x' }])]),
      's.json: messages[1].content[0].type: is required (allowed: "text", "image" or "file")',
    ],
    ['a text part without text', session([user([{ type: 'text' }])]), 's.json: messages[1].content[0].text: is required'],
    [
      'a text part of a number',
      session([user([{ type: 'text', text: 1 }])]),
      's.json: messages[1].content[0].text: must be a string, not the number 1',
    ],
    [
      'a reasoning part in a user message',
      session([user([{ type: 'reasoning', text: 'x' }])]),
      "s.json: messages[1].content[0].type: reasoning parts are the model's: they go in assistant messages",
    ],
    [
      'a tool-call part in a user message',
      session([user([call('c1')])]),
      's.json: messages[1].content[0].type: a tool-call part is the model\'s call: it goes in an assistant message (a "tool" message answers it)',
    ],
    [
      'a tool-result part in a user message',
      session([user([result('c1')])]),
      's.json: messages[1].content[0].type: a tool-result part goes in a "tool" message (it answers a tool-call of the assistant message before it)',
    ],
    [
      "Anthropic's tool_use block",
      session([assistant({ type: 'tool_use', id: 'c1', name: 'x', input: {} })]),
      's.json: messages[1].content[0].type: is Anthropic\'s: an AI SDK call is a { "type": "tool-call" } part',
    ],
    [
      'an image part in an assistant message',
      session([assistant({ type: 'image', image: 'iVBORw0KGgo=' })]),
      's.json: messages[1].content[0].type: an assistant message takes no image part: an image the model made is a { "type": "file" } part',
    ],
    [
      'a tool-approval-response in an assistant message',
      session([assistant({ type: 'tool-approval-response', approvalId: 'a1', approved: true })]),
      's.json: messages[1].content[0].type: a tool-approval-response part goes in a "tool" message',
    ],
    [
      'a reasoning signature (AI SDK 4)',
      session([assistant({ type: 'reasoning', text: 'x', signature: 's' })]),
      's.json: messages[1].content[0].signature: is AI SDK 4\'s: AI SDK 5+ keeps a reasoning signature in the part\'s providerOptions (e.g. { "anthropic": { "signature" } })',
    ],
    [
      'a tool message of a string',
      session([assistant(call('c1')), { role: 'tool', content: 'ok' }]),
      's.json: messages[2].content: must be an array of tool-result and tool-approval-response parts, not a string',
    ],
    [
      'a text part in a tool message',
      session([assistant(call('c1')), toolMessage(text('ok'))]),
      's.json: messages[2].content[0].type: a "tool" message holds only tool-result and tool-approval-response parts: a tool\'s text goes in its result\'s "output" ({ "type": "text", "value" })',
    ],
    [
      "a part's providerOptions not of objects",
      session([user([{ type: 'text', text: 'x', providerOptions: { openai: 'x' } }])]),
      's.json: messages[1].content[0].providerOptions.openai: the options of the provider "openai" must be a JSON object, not a string',
    ],
    // Images and files.
    [
      'bytes as JSON',
      session([user([{ type: 'image', image: { 0: 137, 1: 80 } }])]),
      's.json: messages[1].content[0].image: must be a string (base64 data or a URL), not an object: JSON has no Uint8Array, Buffer or URL objects, so encode the bytes as base64',
    ],
    [
      'a file path',
      session([user([{ type: 'image', image: './shot.png' }])]),
      's.json: messages[1].content[0].image: must be base64 data or a URL (https:, data:…): the AI SDK reads a string that is not a URL as base64, and this one is not (a file path is neither: read the file and encode it)',
    ],
    [
      'an empty image',
      session([user([{ type: 'image', image: '' }])]),
      's.json: messages[1].content[0].image: must not be empty (base64 data or a URL)',
    ],
    [
      'mimeType (AI SDK 4)',
      session([user([{ type: 'image', image: 'iVBORw0KGgo=', mimeType: 'image/png' }])]),
      's.json: messages[1].content[0].mimeType: is the AI SDK 4 name: AI SDK 5+ calls it "mediaType"',
    ],
    [
      'a file part without mediaType',
      session([user([{ type: 'file', data: 'https://example.com/a.pdf' }])]),
      's.json: messages[1].content[0].mediaType: is required (the file\'s IANA media type, e.g. "application/pdf")',
    ],
    [
      'a file part without data',
      session([user([{ type: 'file', mediaType: 'application/pdf' }])]),
      's.json: messages[1].content[0].data: is required (base64 data or a URL)',
    ],
    // Tool calls and results.
    [
      'a call without toolCallId',
      session([assistant({ type: 'tool-call', toolName: 'x', input: {} })]),
      's.json: messages[1].content[0].toolCallId: is required',
    ],
    ['an empty toolCallId', session([assistant(call(''))]), 's.json: messages[1].content[0].toolCallId: a toolCallId must not be empty'],
    ['an empty toolName', session([assistant(call('c1', ''))]), 's.json: messages[1].content[0].toolName: a tool name must not be empty'],
    [
      'a call without input',
      session([assistant({ type: 'tool-call', toolCallId: 'c1', toolName: 'x' })]),
      "s.json: messages[1].content[0].input: is required (the call's arguments: any JSON value)",
    ],
    [
      'args (AI SDK 4)',
      session([assistant({ type: 'tool-call', toolCallId: 'c1', toolName: 'x', args: {} })]),
      's.json: messages[1].content[0].args: is the AI SDK 4 name: AI SDK 5+ tool-call parts carry the arguments in "input"',
    ],
    [
      'result (AI SDK 4)',
      session([assistant(call('c1')), toolMessage({ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', result: 'ok' })]),
      's.json: messages[2].content[0].result: is the AI SDK 4 name: AI SDK 5+ tool-result parts carry "output" ({ "type": "text", "value" }, { "type": "json", "value" }, …)',
    ],
    [
      'isError (AI SDK 4)',
      session([assistant(call('c1')), toolMessage({ ...result('c1'), isError: true })]),
      's.json: messages[2].content[0].isError: is AI SDK 4\'s: AI SDK 5+ gives an error as an output of type "error-text" or "error-json"',
    ],
    [
      'a result without output',
      session([assistant(call('c1')), toolMessage({ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file' })]),
      's.json: messages[2].content[0].output: is required',
    ],
    [
      'an output of a string',
      session([assistant(call('c1')), toolMessage(result('c1', 'read_file', 'ok'))]),
      's.json: messages[2].content[0].output: must be a tool output ({ "type": "text", "value" }, { "type": "json", "value" }, …), not a string',
    ],
    [
      'an unknown output kind',
      session([assistant(call('c1')), toolMessage(result('c1', 'read_file', { type: 'markdown', value: '#' }))]),
      's.json: messages[2].content[0].output.type: must be "text", "json", "execution-denied", "error-text", "error-json" or "content", not "markdown"',
    ],
    [
      'a json output without value',
      session([assistant(call('c1')), toolMessage(result('c1', 'read_file', { type: 'json' }))]),
      's.json: messages[2].content[0].output.value: is required (the output: any JSON value)',
    ],
    [
      'a text output of an object',
      session([assistant(call('c1')), toolMessage(result('c1', 'read_file', { type: 'text', value: { a: 1 } }))]),
      's.json: messages[2].content[0].output.value: must be a string, not an object',
    ],
    [
      'an unknown content item',
      session([assistant(call('c1')), toolMessage(result('c1', 'read_file', { type: 'content', value: [{ type: 'audio' }] }))]),
      's.json: messages[2].content[0].output.value[0].type: must be "text", "media", "file-data", "file-url", "file-id", "image-data", "image-url", "image-file-id" or "custom", not "audio"',
    ],
    [
      'an image-url item that is not a URL',
      session([
        assistant(call('c1')),
        toolMessage(result('c1', 'read_file', { type: 'content', value: [{ type: 'image-url', url: 'shot.png' }] })),
      ]),
      's.json: messages[2].content[0].output.value[0].url: must be a URL (the AI SDK parses it with new URL())',
    ],
    // Calls and results pair up.
    [
      'a toolCallId used twice',
      session([assistant(call('c1')), toolMessage(result('c1')), assistant(call('c1'))]),
      's.json: messages[3].content[0].toolCallId: the toolCallId "c1" is already used by messages[1].content[0]; toolCallIds must be unique in a session',
    ],
    [
      'a result that answers no call',
      session([assistant(call('c1')), toolMessage(result('c1'), result('c9'))]),
      's.json: messages[2].content[1].toolCallId: "c9" answers no tool call: a tool-result must answer a tool-call of the assistant message before it',
    ],
    [
      'a result naming another tool',
      session([assistant(call('c1')), toolMessage(result('c1', 'grep'))]),
      's.json: messages[2].content[0].toolName: names the tool "grep", but the call "c1" it answers (messages[1].content[0]) is to "read_file"',
    ],
    [
      'a call answered twice',
      session([assistant(call('c1')), toolMessage(result('c1')), toolMessage(result('c1'))]),
      's.json: messages[3].content[0].toolCallId: the tool call "c1" is already answered by messages[2].content[0]; a tool call is answered once',
    ],
    [
      'a result after another assistant message',
      session([assistant(call('c1')), assistant(text('and')), toolMessage(result('c1'))]),
      's.json: messages[3].content[0].toolCallId: answers the call "c1" of messages[1], but a "tool" message must follow the assistant message whose call it answers (only other tool messages may stand between them)',
    ],
    [
      'a tool message after a user message',
      session([toolMessage(result('c1'))]),
      's.json: messages[1].role: a "tool" message must follow the assistant message whose calls it answers (or another "tool" message), not a "user" message',
    ],
    [
      'a tool message first',
      { format: 'ai-sdk', model: 'm', messages: [toolMessage(result('c1'))] },
      's.json: messages[0].role: a "tool" message cannot come first: it answers the calls of the assistant message before it',
    ],
    [
      'a call left unanswered before a user message',
      session([assistant(call('c1')), user()]),
      `s.json: messages[1].content[0].toolCallId: ${UNANSWERED('c1')}`,
    ],
    [
      'a call left unanswered before a system message',
      session([assistant(call('c1')), { role: 'system', content: 'x' }]),
      `s.json: messages[1].content[0].toolCallId: ${UNANSWERED('c1')}`,
    ],
    [
      'a call of an earlier assistant message left unanswered',
      session([assistant(call('c1'), call('c2')), toolMessage(result('c1')), assistant(call('c3'))]),
      `s.json: messages[1].content[1].toolCallId: ${UNANSWERED('c2')}`,
    ],
    [
      'a provider-executed call answered in a tool message',
      session([assistant(call('ws1', 'web_search', { providerExecuted: true })), toolMessage(result('ws1', 'web_search'))]),
      's.json: messages[2].content[0].toolCallId: answers the provider-executed call "ws1" (providerExecuted: true): its result goes in an assistant message, after the call',
    ],
    [
      'an agent-run call answered in the assistant message',
      session([assistant(call('c1'), result('c1'))]),
      's.json: messages[1].content[1].toolCallId: answers the call "c1" of messages[1].content[0], which is not provider-executed: its result goes in a "tool" message after that assistant message',
    ],
    [
      'a result in an assistant message answering nothing',
      session([assistant(result('ws1', 'web_search'))]),
      's.json: messages[1].content[0].toolCallId: "ws1" answers no tool call: a tool-result in an assistant message answers a provider-executed tool-call (providerExecuted: true) before it',
    ],
    // Tool approvals.
    [
      'an approval request naming no call',
      session([assistant({ type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' })]),
      's.json: messages[1].content[0].toolCallId: "c1" names no tool-call: an approval request comes after the tool-call it asks about',
    ],
    [
      'an approval response without its request',
      session([assistant(call('c1')), toolMessage({ type: 'tool-approval-response', approvalId: 'a1', approved: true })]),
      's.json: messages[2].content[0].approvalId: "a1" answers no tool-approval-request: an approval response answers a request of an earlier assistant message',
    ],
    [
      'an approvalId used twice',
      session([
        assistant(
          call('c1'),
          { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
          { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
        ),
      ]),
      's.json: messages[1].content[2].approvalId: the approvalId "a1" is already used by messages[1].content[1]; approvalIds must be unique in a session',
    ],
    [
      'an approval answered twice',
      session([
        assistant(call('c1'), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }),
        toolMessage(
          { type: 'tool-approval-response', approvalId: 'a1', approved: true },
          { type: 'tool-approval-response', approvalId: 'a1', approved: false },
        ),
      ]),
      's.json: messages[2].content[1].approvalId: the approval "a1" is already answered by messages[2].content[0]; an approval is answered once',
    ],
    [
      'an approval response without approved',
      session([
        assistant(call('c1'), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }),
        toolMessage({ type: 'tool-approval-response', approvalId: 'a1' }),
      ]),
      's.json: messages[2].content[0].approved: is required',
    ],
    // JSON.
    [
      'a __proto__ key',
      JSON.parse('{"format":"ai-sdk","model":"m","messages":[{"role":"user","content":"x","__proto__":{}}]}'),
      's.json: messages[0].__proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    ],
    [
      'a NaN temperature',
      session([], { temperature: Number.NaN }),
      's.json: temperature: NaN is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
    [
      'a Date in a call input (from code)',
      session([assistant(call('c1', 'read_file', { input: { since: new Date(0) } }))]),
      's.json: messages[1].content[0].input.since: must be JSON data, not a Date object',
    ],
    [
      'undefined in an array of providerOptions (from code)',
      session([user([{ type: 'text', text: 'x', providerOptions: { openai: { list: [1, undefined] } } }])]),
      's.json: messages[1].content[0].providerOptions.openai.list[1]: must be JSON data, not undefined',
    ],
  ])('%s', (_name, input, message) => {
    const err = errorOf(() => parseAiSdkSession(input, 's.json'));
    expect(err.message).toBe(message);
    expect(err.file).toBe('s.json');
  });

  it('reports the path and the rule separately, and no file when none is given', () => {
    const err = errorOf(() => parseAiSdkSession(session([assistant(call('c1', ''))])));
    expect(err.file).toBeUndefined();
    expect(err.path).toBe('messages[1].content[0].toolName');
    expect(err.rule).toBe('a tool name must not be empty');
    expect(err.message).toBe('messages[1].content[0].toolName: a tool name must not be empty');
  });

  it('the schema alone says the same (zod issues with paths)', () => {
    const parsed = aiSdkSessionSchema().safeParse(session([assistant(call('c1')), user()]));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['messages', 1, 'content', 0, 'toolCallId'], message: UNANSWERED('c1') });
  });
});

describe('a session the real AI SDK produced', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startLocalServer({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  const SYSTEM = 'You are a terse coding agent.';
  const DESCRIPTION = 'Reads a file';

  async function run(withExecute: boolean, steps: number) {
    const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o');
    const input: ModelMessage[] = [{ role: 'user', content: 'Read the README.\nCALL read_file {"path":"README.md"}' }];
    const readFile = withExecute
      ? tool({
          description: DESCRIPTION,
          inputSchema: jsonSchema<{ path: string }>(READ_FILE_SCHEMA),
          execute: async ({ path }) => `# ${path}\nforkpool`,
        })
      : tool({ description: DESCRIPTION, inputSchema: jsonSchema<{ path: string }>(READ_FILE_SCHEMA) });
    const result = await generateText({
      model,
      system: SYSTEM,
      messages: input,
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    });
    // The session as JSON: the messages the agent sent and got back, its tools as JSON schemas.
    const json: unknown = JSON.parse(
      JSON.stringify({
        format: 'ai-sdk',
        model: 'gpt-4o',
        system: SYSTEM,
        messages: [...input, ...result.response.messages],
        tools: { read_file: { description: DESCRIPTION, inputSchema: READ_FILE_SCHEMA } },
      }),
    );
    return { json, model };
  }

  it('generateText with a tool that runs, two steps: the session parses, and the AI SDK runs it again', async () => {
    const { json, model } = await run(true, 2);
    const parsed = parseAiSdkSession(json, 'sdk.json');
    expect(parsed).toBe(json);
    expect(parsed.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(parsed.messages[1]?.content).toEqual([
      expect.objectContaining({ type: 'tool-call', toolName: 'read_file', input: { path: 'README.md' } }),
    ]);
    expect(parsed.messages[2]?.content).toEqual([
      expect.objectContaining({ type: 'tool-result', toolName: 'read_file', output: { type: 'text', value: '# README.md\nforkpool' } }),
    ]);

    // What the session holds is what generateText takes: the same call, from the JSON.
    const again = await generateText({
      model,
      system: parsed.system as string,
      messages: [...(parsed.messages as ModelMessage[]), { role: 'user', content: 'REPLY done' }],
      tools: Object.fromEntries(
        Object.entries(parsed.tools ?? {}).map(([name, t]) => [
          name,
          tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema) }),
        ]),
      ),
    });
    expect(again.text).toBe('done');
  });

  it('a parent mid-turn (a tool without execute: the call is left for the forks to answer) parses', async () => {
    const { json } = await run(false, 1);
    const parsed = parseAiSdkSession(json, 'sdk.json');
    expect(parsed).toBe(json);
    expect(parsed.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('types', () => {
  it('session messages are ModelMessages of the AI SDK', () => {
    expectTypeOf<AiSdkMessage>().toExtend<ModelMessage>();
    expectTypeOf<AiSdkSession['messages'][number]>().toExtend<ModelMessage>();
    expectTypeOf<AiSdkTool['inputSchema']>().toExtend<{ type: 'object' }>();
    expectTypeOf(parseAiSdkSession).returns.toEqualTypeOf<AiSdkSession>();
    // What JSON carries of the AI SDK's parts is a session's.
    expectTypeOf<{
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: { path: string };
      providerExecuted?: boolean;
    }>().toExtend<Extract<AiSdkMessage, { role: 'assistant' }>['content'][number]>();
    expectTypeOf<{ role: 'system'; content: string }>().toExtend<AiSdkMessage>();
  });

  // vitest does not type-check test files (and `tsc -p .` covers src only), so the assertions
  // above are compiled here. The schema file's own compile-time checks run with `tsc -p .`.
  it('this file type-checks against the AI SDK', { timeout: 120_000 }, () => {
    expect(typeErrorsOf(fileURLToPath(import.meta.url))).toEqual([]);
  });
});
