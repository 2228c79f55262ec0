import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConversionError,
  type ConvertOptions,
  convertSession,
  type OpenAIChatSession,
  type OpenAIResponsesSession,
  type ParentSession,
  parseSession,
} from '../src/index.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { errorOf as inputErrorOf } from './support/input-error.js';

/*
 * Converting sessions between OpenAI's two shapes, Chat Completions' ("openai-chat") and the
 * Responses API's ("openai-responses"), and between Gemini's and the Responses API's through Chat
 * Completions' (src/convert/to-openai-responses.ts, from-openai-responses.ts): the round trips,
 * every rule with its path, and converted sessions run by the built CLI against forkpool serve.
 */

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ParentSession;
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-convert-responses-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function chat(messages: unknown[], extra: Record<string, unknown> = {}): OpenAIChatSession {
  return { format: 'openai-chat', model: 'gpt-4.1', messages, ...extra } as OpenAIChatSession;
}

function responses(input: unknown, extra: Record<string, unknown> = {}): OpenAIResponsesSession {
  return { format: 'openai-responses', model: 'gpt-4.1', input, ...extra } as OpenAIResponsesSession;
}

function to<T>(session: unknown, target: 'openai-chat' | 'openai-responses' | 'gemini' | 'anthropic-messages', options?: ConvertOptions) {
  const result = convertSession(session as ParentSession, target, options);
  expect(parseSession(result.session)).toBe(result.session);
  return { ...result, out: result.session as T };
}

function errorOf(fn: () => unknown): ConversionError {
  const err = inputErrorOf(fn);
  expect(err).toBeInstanceOf(ConversionError);
  return err as ConversionError;
}

const lookup = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Looks a key up.',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  },
};
const strictTool = {
  type: 'function',
  function: { name: 'fee', parameters: { type: 'object', properties: {}, additionalProperties: false }, strict: true },
};

/** A Chat Completions conversation with every kind of message the Responses API has a place for, in the keys' documented order. */
const RICH_CHAT = chat(
  [
    { role: 'system', content: 'You audit refunds.' },
    { role: 'developer', content: [{ type: 'text', text: 'Cite files.', prompt_cache_breakpoint: { mode: 'explicit' } }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Audit code MARKER-RC4T. What is on this chart?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'fees.pdf' } },
      ],
    },
    {
      role: 'assistant',
      content: 'I will look both keys up.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"key":"fee"}' } },
        { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"key":"cap"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'REFUND_FEE = 2.25' },
    {
      role: 'tool',
      tool_call_id: 'call_b',
      content: [
        { type: 'text', text: 'CAP = ' },
        { type: 'text', text: '40' },
      ],
    },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'fee', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_c', content: '{"fee":2.25}' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'The fee is 2.25' },
        { type: 'text', text: ' and the cap is 40.' },
      ],
    },
    { role: 'user', content: 'Thanks.' },
  ],
  {
    tools: [lookup, strictTool],
    tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'lookup' } }] } },
    parallel_tool_calls: true,
    temperature: 0.2,
    top_p: 0.9,
    max_completion_tokens: 2048,
    reasoning_effort: 'low',
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'audit', description: 'The audit.', schema: { type: 'object' }, strict: true },
    },
    prompt_cache_options: { mode: 'explicit' },
  },
);

describe('openai-chat → openai-responses → openai-chat', () => {
  it('a conversation with tools, parallel calls and their results comes back deep-equal and byte for byte', () => {
    const there = to<OpenAIResponsesSession>(RICH_CHAT, 'openai-responses');
    const back = to<OpenAIChatSession>(there.out, 'openai-chat');
    expect(back.out).toEqual(RICH_CHAT);
    expect(JSON.stringify(back.out)).toBe(JSON.stringify(RICH_CHAT));
    expect(there).toMatchObject({
      from: 'openai-chat',
      to: 'openai-responses',
      messages: { from: 10, to: 13 },
      tools: 2,
      dropped: [],
      notes: [],
    });
    expect(back).toMatchObject({ messages: { from: 13, to: 10 }, tools: 2, dropped: [], notes: [] });
  });

  it('writes the Responses shape: messages and items in order, flat tools, settings under their Responses names', () => {
    const { out } = to<OpenAIResponsesSession>(RICH_CHAT, 'openai-responses');
    expect(out).toEqual({
      format: 'openai-responses',
      model: 'gpt-4.1',
      input: [
        { role: 'system', content: 'You audit refunds.' },
        { role: 'developer', content: [{ type: 'input_text', text: 'Cite files.', prompt_cache_breakpoint: { mode: 'explicit' } }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Audit code MARKER-RC4T. What is on this chart?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
            { type: 'input_image', image_url: 'https://example.com/b.png', detail: 'auto' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'fees.pdf' },
          ],
        },
        { role: 'assistant', content: 'I will look both keys up.' },
        { type: 'function_call', call_id: 'call_a', name: 'lookup', arguments: '{"key":"fee"}' },
        { type: 'function_call', call_id: 'call_b', name: 'lookup', arguments: '{"key":"cap"}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'REFUND_FEE = 2.25' },
        {
          type: 'function_call_output',
          call_id: 'call_b',
          output: [
            { type: 'input_text', text: 'CAP = ' },
            { type: 'input_text', text: '40' },
          ],
        },
        { type: 'function_call', call_id: 'call_c', name: 'fee', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_c', output: '{"fee":2.25}' },
        { role: 'assistant', content: 'The fee is 2.25' },
        { role: 'assistant', content: ' and the cap is 40.' },
        { role: 'user', content: 'Thanks.' },
      ],
      tools: [
        { type: 'function', name: 'lookup', description: 'Looks a key up.', parameters: lookup.function.parameters, strict: false },
        { type: 'function', name: 'fee', parameters: strictTool.function.parameters, strict: true },
      ],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'lookup' }] },
      parallel_tool_calls: true,
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 2048,
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'audit', description: 'The audit.', schema: { type: 'object' }, strict: true } },
      prompt_cache_options: { mode: 'explicit' },
    });
    expect(Object.keys(out)).toEqual([
      'format',
      'model',
      'input',
      'tools',
      'tool_choice',
      'parallel_tool_calls',
      'temperature',
      'top_p',
      'max_output_tokens',
      'reasoning',
      'text',
      'prompt_cache_options',
    ]);
  });

  it('the example comes back as it was but for max_tokens, which the Responses API counts as max_completion_tokens does', () => {
    const example = readJson('examples/openai-session.json') as OpenAIChatSession;
    const back = to<OpenAIChatSession>(to(example, 'openai-responses').out, 'openai-chat').out;
    const { max_tokens, ...rest } = example;
    expect(back).toEqual({ ...rest, max_completion_tokens: max_tokens });
  });

  it('neither changes its input nor shares objects with it', () => {
    const copy = structuredClone(RICH_CHAT);
    const { out } = to<OpenAIResponsesSession>(RICH_CHAT, 'openai-responses');
    expect(RICH_CHAT).toEqual(copy);
    (out.tools?.[0]?.parameters as Record<string, unknown>).type = 'changed';
    expect(JSON.stringify(RICH_CHAT)).toBe(JSON.stringify(copy));
  });

  it("Chat's defaults are written out where the Responses API requires a field: parameters (noted), strict false, an image's detail", () => {
    const bare = chat([{ role: 'user', content: 'hi' }], { tools: [{ type: 'function', function: { name: 'ping', strict: null } }] });
    const { out, notes } = to<OpenAIResponsesSession>(bare, 'openai-responses');
    expect(out.tools).toEqual([{ type: 'function', name: 'ping', parameters: { type: 'object', properties: {} }, strict: false }]);
    expect(notes).toEqual([
      'tools[0]: parameters { "type": "object", "properties": {} } (the Responses API requires them; Chat\'s omitted parameters are an empty parameter list)',
    ]);
  });

  it('what the Responses API has no place for is an error naming its path, or left out and listed with dropUnsupported', () => {
    const source = chat(
      [
        {
          role: 'user',
          name: 'ana',
          content: [
            { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
      ],
      { seed: 7, stop: ['END'], max_tokens: 10 },
    );
    const err = errorOf(() => convertSession(source, 'openai-responses', { source: 'c.json' }));
    expect(err.message).toBe('c.json: messages[0]: name cannot be converted to openai-responses: a Responses message has no name');
    expect(err.droppable).toBe(true);
    const { out, dropped } = to<OpenAIResponsesSession>(source, 'openai-responses', { dropUnsupported: true });
    expect(dropped).toEqual([
      { path: 'messages[0]', what: 'name' },
      { path: 'messages[0].content[0]', what: 'cache_control' },
      { path: 'messages[0].content[1]', what: 'input_audio' },
      { path: 'messages[1].content[0]', what: 'refusal' },
      { path: '', what: 'seed' },
      { path: '', what: 'stop' },
      { path: '', what: 'max_tokens' },
    ]);
    expect(out).toEqual(responses([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]));
    expect(errorOf(() => convertSession(chat([{ role: 'user', content: 'x' }], { max_tokens: 10 }), 'openai-responses')).rule).toBe(
      "max_tokens cannot be converted to openai-responses: 10 is below the Responses API's floor of 16 output tokens",
    );
  });
});

describe('openai-responses → openai-chat', () => {
  it('the example: instructions become the leading system message, a model turn one assistant message with its calls', () => {
    const example = readJson('examples/responses-session.json') as OpenAIResponsesSession;
    const { out, messages, dropped } = to<OpenAIChatSession>(example, 'openai-chat');
    expect(messages).toEqual({ from: 23, to: 20 });
    expect(dropped).toEqual([]);
    expect(out.messages[0]).toEqual({ role: 'system', content: example.instructions });
    expect(out.messages[2]).toEqual({
      role: 'assistant',
      content: 'I will start from the top of the source tree.',
      tool_calls: [{ id: 'call_01', type: 'function', function: { name: 'list_dir', arguments: '{"path":"src"}' } }],
    });
    // Two calls and their outputs, in the API's order: both results follow the message that made the calls.
    expect(
      out.messages
        .slice(4, 7)
        .map((m) => ('tool_call_id' in m ? m.tool_call_id : 'tool_calls' in m ? m.tool_calls?.map((c) => c.id) : undefined)),
    ).toEqual([['call_02', 'call_03'], 'call_02', 'call_03']);
    expect(out.tools?.[0]).toEqual({
      type: 'function',
      function: { name: 'read_file', description: example.tools?.[0]?.description, parameters: example.tools?.[0]?.parameters },
    });
    expect(Object.keys(out)).toEqual(['format', 'model', 'messages', 'tools', 'temperature', 'max_completion_tokens']);
    // And back: the same items, the instructions now a system message of the input.
    const back = to<OpenAIResponsesSession>(out, 'openai-responses').out;
    const { instructions, input, ...rest } = example;
    expect(back).toEqual({ ...rest, input: [{ role: 'system', content: instructions }, ...(input as unknown[])] });
  });

  it('what a response reports about its own items (ids, statuses, logprobs) is left out and noted once; refusal parts stay', () => {
    const source = responses(
      [
        { role: 'user', content: 'q', type: 'message' },
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [
            { type: 'output_text', text: 'Part one.', annotations: [], logprobs: [] },
            { type: 'refusal', refusal: 'Not that.' },
          ],
        },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'f',
          arguments: '{}',
          status: 'completed',
          caller: { type: 'direct' },
        },
        { type: 'function_call_output', call_id: 'call_1', output: 'ok', id: 'fco_1', status: 'completed' },
      ],
      {
        tools: [
          { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false, allowed_callers: ['direct'], defer_loading: false },
        ],
        truncation: 'disabled',
        include: [],
      },
    );
    const { out, dropped, notes } = to<OpenAIChatSession>(source, 'openai-chat');
    expect(out.messages).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Part one.' },
          { type: 'refusal', refusal: 'Not that.' },
        ],
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ]);
    expect(out.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
    expect(dropped).toEqual([]);
    expect(notes).toEqual([
      '7 item ids, statuses and logprobs left out: what a response reports about its own items, which Chat Completions messages do not carry',
    ]);
  });

  it('reasoning items, references and settings Chat lacks are errors naming their paths, or left out and listed', () => {
    const source = responses(
      [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'go' },
            { type: 'input_image', file_id: 'file_1', detail: 'auto' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: [
            { type: 'input_text', text: 'ok' },
            { type: 'input_file', file_id: 'file_2' },
          ],
        },
        { type: 'item_reference', id: 'msg_9' },
      ],
      {
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: null }],
        reasoning: { effort: 'max', summary: 'auto' },
        store: false,
        truncation: 'auto',
        text: { verbosity: 'low' },
      },
    );
    const err = errorOf(() => convertSession(source, 'openai-chat', { source: 'r.json' }));
    expect(err.message).toBe('r.json: store cannot be converted to openai-chat: an openai-chat session has no such setting');
    const { out, dropped } = to<OpenAIChatSession>(source, 'openai-chat', { dropUnsupported: true });
    expect(dropped).toEqual([
      { path: '', what: 'store' },
      { path: '', what: 'truncation "auto"' },
      { path: 'input[0].content[1]', what: 'an image by file_id' },
      { path: 'input[1]', what: 'reasoning' },
      { path: 'input[3].output[1]', what: 'input_file' },
      { path: 'input[4]', what: 'item_reference' },
      { path: 'tools[0]', what: 'strict null' },
      { path: 'reasoning', what: 'summary' },
      { path: 'reasoning', what: 'effort "max"' },
      { path: 'text', what: 'verbosity' },
    ]);
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'ok' }] },
    ]);
    const reasoning = responses([
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
      { role: 'assistant', content: 'a' },
    ]);
    expect(errorOf(() => convertSession(reasoning, 'openai-chat')).message).toBe(
      "input[1]: reasoning cannot be converted to openai-chat: Chat Completions takes no reasoning items (the model's encrypted reasoning) back",
    );
    const strictNull = responses('q', { tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: null }] });
    expect(errorOf(() => convertSession(strictNull, 'openai-chat')).message).toBe(
      'tools[0]: strict null cannot be converted to openai-chat: the Responses API then makes the schema strict and Chat Completions does not: set strict to true or false',
    );
  });

  it('an output that does not follow its call (only other outputs between) has no Chat form: an error naming its call_id, whatever dropUnsupported says', () => {
    const late = responses([
      { role: 'user', content: 'q' },
      { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      { role: 'assistant', content: 'While it runs: hello.' },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ]);
    for (const dropUnsupported of [false, true]) {
      const err = errorOf(() => convertSession(late, 'openai-chat', { source: 'r.json', dropUnsupported }));
      expect(err.message).toBe(
        'r.json: input[3].call_id: "call_1" answers no call of the model turn just before it: in openai-chat a tool message follows the assistant message whose call it answers (only other tool messages between)',
      );
      expect(err.droppable).toBe(false);
    }
  });

  it('a string input is one user message; a mid-turn parent keeps its unanswered calls', () => {
    expect(to<OpenAIChatSession>(responses('Hello.', { instructions: 'Be brief.' }), 'openai-chat').out.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello.' },
    ]);
    const midTurn = responses([
      { role: 'user', content: 'q' },
      { type: 'function_call', call_id: 'call_1', name: 'agent', arguments: '{"prompt":"A"}' },
    ]);
    const there = to<OpenAIChatSession>(midTurn, 'openai-chat').out;
    expect(to<OpenAIResponsesSession>(there, 'openai-responses').out).toEqual(midTurn);
  });
});

describe('gemini ⇄ openai-responses, through openai-chat', () => {
  it('the Gemini example comes back byte for byte', () => {
    const example = readJson('examples/session.json');
    const there = to<OpenAIResponsesSession>(example, 'openai-responses');
    expect(there).toMatchObject({ from: 'gemini', to: 'openai-responses', dropped: [], notes: [] });
    const back = to(there.out, 'gemini');
    expect(JSON.stringify(back.out)).toBe(JSON.stringify(example));
  });

  it("through the hub every error names the source session's own path", () => {
    const rich = readJson('test/fixtures/convert/gemini-calls.json');
    expect(errorOf(() => convertSession(rich, 'openai-responses', { source: 'g.json' })).message).toBe(
      'g.json: generationConfig: seed cannot be converted to openai-responses: the Responses API has no such setting',
    );
    const image = {
      model: 'gemini-2.5-flash',
      history: [{ role: 'user', parts: [{ text: 'x' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }],
    } as ParentSession;
    expect(errorOf(() => convertSession(image, 'openai-responses', { source: 'g.json' })).message).toBe(
      'g.json: history[0].parts[1]: inlineData cannot be converted to openai-responses',
    );
    const { dropped, notes } = to(rich, 'openai-responses', { dropUnsupported: true });
    expect(dropped).toEqual([
      { path: 'generationConfig', what: 'seed' },
      { path: 'generationConfig', what: 'stopSequences' },
    ]);
    expect(notes).toEqual([
      'tools[0].functionDeclarations[2]: parameters { "type": "object", "properties": {} } (the Responses API requires them; Chat\'s omitted parameters are an empty parameter list)',
    ]);
    const reasoning = responses([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'q' },
          { type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' },
        ],
      },
    ]);
    expect(errorOf(() => convertSession(reasoning, 'gemini')).message).toBe(
      'input[0].content[1]: input_image cannot be converted to gemini',
    );
  });

  it('a Responses session converts to anthropic-messages through the hub', () => {
    const { out, dropped, notes } = to(responses('hi', { instructions: 'Be brief.', max_output_tokens: 100 }), 'anthropic-messages');
    expect(out).toEqual({
      format: 'anthropic-messages',
      model: 'gpt-4.1',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      max_tokens: 100,
    });
    expect(dropped).toEqual([]);
    expect(notes).toEqual([]);
  });
});

describe('converted sessions run: the built CLI against forkpool serve', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--usage', 'openai']);
  });
  afterAll(async () => {
    await serve?.stop();
  });

  const workspace = mkdtempSync(join(tmp, 'workspace-'));
  writeFileSync(join(workspace, 'fees.txt'), 'The fee table is filed under FEE_CODE_ZX81.\n');
  const tasks = join(tmp, 'tasks.jsonl');
  writeFileSync(
    tasks,
    [
      { id: 'recall', directive: 'RECALL MARKER-[0-9A-F]{4}' },
      { id: 'tool', directive: 'CALL read_file {"path":"fees.txt"}\nRECALL FEE_CODE_[A-Z0-9]{4}' },
      { id: 'reply', directive: 'REPLY converted and running' },
    ]
      .map((task) => JSON.stringify(task))
      .join('\n'),
  );

  it.each([
    ['examples/openai-session.json', 'openai-responses'],
    ['examples/responses-session.json', 'openai-chat'],
    ['examples/session.json', 'openai-responses'],
  ])(
    '%s converted to %s: every fork completes on the OpenAI provider, sees the parent conversation and calls a tool',
    async (example, target) => {
      const session = join(tmp, `${target}-from-${example.replace(/\W/g, '_')}`);
      const converted = await runCli(['convert', example, '--to', target, '--out', session]);
      expect(converted.code, converted.stderr).toBe(0);
      expect(parseSession(JSON.parse(readFileSync(session, 'utf8')))).toMatchObject(target === 'gemini' ? {} : { format: target });
      const out = join(tmp, `${target}-${example.replace(/\W/g, '_')}.jsonl`);
      const run = await runCli(
        [
          'run',
          '--session',
          session,
          '--tasks',
          tasks,
          '--workspace',
          workspace,
          '--provider',
          'openai',
          '--base-url',
          `${serve.url}/v1`,
          '--out',
          out,
          '--output-format',
          'json',
        ],
        { env: { OPENAI_API_KEY: 'fp-convert-responses-key' } },
      );
      expect(run.code, run.stderr).toBe(0);
      const lines = Object.fromEntries(jsonLines(readFileSync(out, 'utf8')).map((line) => [line.id, line]));
      for (const id of ['recall', 'tool', 'reply']) expect(lines[id]?.status, id).toBe('completed');
      expect(lines.recall?.text).toContain('MARKER-1F0C');
      expect(lines.tool?.text).toContain('FEE_CODE_ZX81');
      expect(lines.tool?.toolCalls).toBe(1);
      expect(lines.reply?.text).toBe('converted and running');
    },
  );
});
