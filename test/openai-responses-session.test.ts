// Internal: parseOpenAIResponsesSession, openAIResponsesSessionSchema() and the types of src/shapes/openai-responses/schema.ts (a parent session in the Responses API's shape).
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type {
  FunctionTool,
  Response as ResponsesResponse,
  ResponseCreateParamsNonStreaming,
  ResponseCustomToolCall,
  ResponseFunctionWebSearch,
  ResponseInputItem,
  WebSearchTool,
} from 'openai/resources/responses/responses';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  openAIResponsesSessionSchema,
  parseOpenAIResponsesSession,
  type OpenAIResponsesSession,
  type ResponsesFunctionTool,
  type ResponsesInputItem,
} from '../src/shapes/openai-responses/schema.js';
import { errorOf } from './support/input-error.js';
import { typeErrorsOf } from './support/type-check.js';

/** A session of one user message followed by `items`, with `extra` top-level fields. */
function session(items: unknown[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: 'openai-responses', model: 'gpt-5', input: [{ role: 'user', content: 'hi' }, ...items], ...extra };
}

const call = (id: string, name = 'read_file', more: Record<string, unknown> = {}) => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: '{"path":"a"}',
  ...more,
});
const output = (id: string, out: unknown = 'ok', more: Record<string, unknown> = {}) => ({
  type: 'function_call_output',
  call_id: id,
  output: out,
  ...more,
});
const reasoning = (id: string, more: Record<string, unknown> = {}) => ({ type: 'reasoning', id, summary: [], ...more });
const text = (t: string) => ({ type: 'output_text', text: t, annotations: [] });
const said = (id: string, more: Record<string, unknown> = {}) => ({
  type: 'message',
  id,
  role: 'assistant',
  status: 'completed',
  content: [text('ok')],
  ...more,
});
const user = (content: unknown = 'next') => ({ role: 'user', content });
const fn = (name: string, more: Record<string, unknown> = {}) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {} },
  strict: true,
  ...more,
});
const tools = [fn('read_file'), fn('grep')];

const READ_FILE_PARAMETERS = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };

describe('parseOpenAIResponsesSession: valid sessions come back as the very object passed', () => {
  it('a realistic session: instructions, reasoning with encrypted content, two calls and their outputs, function tools, reasoning settings', () => {
    const realistic = {
      format: 'openai-responses',
      model: 'gpt-5',
      instructions: 'You are a careful coding agent.',
      input: [
        { role: 'user', content: 'Find where the config is read.' },
        {
          type: 'reasoning',
          id: 'rs_01',
          summary: [{ type: 'summary_text', text: '**Reading the config**\n\nLook at config.ts, then grep for loadConfig.' }],
          encrypted_content: 'gAAAAABpF3x0-encrypted-reasoning==',
        },
        {
          type: 'message',
          id: 'msg_01',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Reading two files.', annotations: [] }],
        },
        {
          type: 'function_call',
          id: 'fc_01',
          call_id: 'call_1',
          name: 'read_file',
          arguments: '{"path":"src/config.ts"}',
          status: 'completed',
        },
        { type: 'function_call', id: 'fc_02', call_id: 'call_2', name: 'grep', arguments: '{"pattern":"loadConfig"}', status: 'completed' },
        { type: 'function_call_output', call_id: 'call_1', output: 'export function loadConfig() {}' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'src/main.ts:3: loadConfig()' }] },
        { type: 'reasoning', id: 'rs_02', summary: [], encrypted_content: 'gAAAAABpF3x1-encrypted-reasoning==' },
        {
          type: 'message',
          id: 'msg_02',
          role: 'assistant',
          status: 'completed',
          phase: 'final_answer',
          content: [{ type: 'output_text', text: 'It is read in src/main.ts, line 3.', annotations: [] }],
        },
      ],
      tools: [
        { type: 'function', name: 'read_file', description: 'Reads a file', parameters: READ_FILE_PARAMETERS, strict: true },
        {
          type: 'function',
          name: 'grep',
          description: null,
          parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
          strict: false,
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'repo-agent',
      store: false,
      max_output_tokens: 4096,
    };
    const before = JSON.stringify(realistic);
    expect(parseOpenAIResponsesSession(realistic, 's.json')).toBe(realistic);
    expect(JSON.stringify(realistic)).toBe(before);
    expect(openAIResponsesSessionSchema().safeParse(realistic).success).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a string input', { format: 'openai-responses', model: 'gpt-5', input: 'Say hi.' }],
    [
      'system and developer messages, typed "message" or not, instructions null',
      session(
        [
          { role: 'system', content: 'Be brief.' },
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
          user(),
        ],
        { instructions: null },
      ),
    ],
    [
      'a user message with every input part',
      session([
        user([
          { type: 'input_text', text: 'look', prompt_cache_breakpoint: { mode: 'explicit' } },
          { type: 'input_image', detail: 'auto', image_url: 'https://example.com/a.png' },
          { type: 'input_image', detail: 'original', file_id: 'file-1', image_url: null },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf', detail: 'high' },
          { type: 'input_file', file_id: 'file-2' },
          { type: 'input_file', file_url: 'https://example.com/b.pdf' },
        ]),
      ]),
    ],
    [
      "a message with a status (the SDK's ResponseInputItem.Message)",
      session([{ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'x' }] }]),
    ],
    ['empty content', session([user(''), { role: 'assistant', content: '' }, user([])])],
    [
      'an assistant message as a string, with its phase',
      session([{ role: 'assistant', content: 'Looking.', phase: 'commentary' }, user()]),
    ],
    [
      'an output message with a refusal, logprobs and every annotation kind',
      session([
        said('msg_1', {
          phase: null,
          content: [
            {
              type: 'output_text',
              text: 'See the docs.',
              annotations: [
                { type: 'file_citation', file_id: 'file-1', filename: 'a.md', index: 3 },
                { type: 'url_citation', url: 'https://example.com', title: 'Example', start_index: 0, end_index: 7 },
                {
                  type: 'container_file_citation',
                  container_id: 'cntr_1',
                  file_id: 'file-2',
                  filename: 'b.csv',
                  start_index: 1,
                  end_index: 2,
                },
                { type: 'file_path', file_id: 'file-3', index: 4 },
              ],
              logprobs: [
                {
                  token: 'See',
                  bytes: [83, 101, 101],
                  logprob: -0.1,
                  top_logprobs: [{ token: 'See', bytes: [83, 101, 101], logprob: -0.1 }],
                },
              ],
            },
            { type: 'refusal', refusal: 'I cannot share the rest.' },
          ],
        }),
        user(),
      ]),
    ],
    [
      'a parent mid-turn: reasoning, a message and two calls unanswered at the end',
      session([reasoning('rs_1'), said('msg_1'), call('c1'), call('c2', 'grep')], { tools }),
    ],
    ['some of the last calls answered (the fork rules answer the rest)', session([call('c1'), call('c2', 'grep'), output('c2')])],
    [
      'an output after a later message (the API pairs calls and outputs by call_id)',
      session([call('c1'), user('meanwhile'), output('c1')]),
    ],
    [
      'outputs as parts, with ids, statuses and callers',
      session([
        call('c1', 'read_file', { id: 'fc_1', status: 'completed', caller: { type: 'direct' } }),
        call('c2', 'read_file', { caller: null }),
        output(
          'c1',
          [
            { type: 'input_text', text: 'a', prompt_cache_breakpoint: null },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: null },
            { type: 'input_file', file_id: 'file-1', file_data: null, file_url: null, filename: null },
          ],
          { id: 'fco_1', status: 'completed', caller: { type: 'direct' } },
        ),
        output('c2', 'ok', { id: null, status: null, caller: null }),
      ]),
    ],
    [
      'reasoning with its content, null encrypted content and a status; two reasoning items before a call',
      session([
        reasoning('rs_1', { content: [{ type: 'reasoning_text', text: 'think' }], encrypted_content: null, status: 'completed' }),
        reasoning('rs_2', {
          summary: [
            { type: 'summary_text', text: 'a' },
            { type: 'summary_text', text: 'b' },
          ],
        }),
        call('c1'),
        output('c1'),
      ]),
    ],
    [
      'item references (typed, untyped, null type), reasoning before one, an output answering a call behind one',
      session([
        reasoning('rs_1'),
        { type: 'item_reference', id: 'msg_1' },
        { id: 'fc_1' },
        { type: null, id: 'fc_2' },
        output('call_stored'),
      ]),
    ],
    [
      'a compaction item, and an output answering a call it holds',
      session([{ type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA==' }, output('c_compacted'), user()]),
    ],
    [
      'every setting as null',
      session([], {
        instructions: null,
        parallel_tool_calls: null,
        temperature: null,
        top_p: null,
        top_logprobs: null,
        max_output_tokens: null,
        reasoning: null,
        include: null,
        truncation: null,
        prompt_cache_key: null,
        prompt_cache_retention: null,
        metadata: null,
        safety_identifier: null,
        service_tier: null,
        store: null,
        moderation: null,
      }),
    ],
    [
      'every setting set',
      session([], {
        tools: [
          fn('read_file', { description: 'd', allowed_callers: ['direct'], defer_loading: false, output_schema: { type: 'object' } }),
          fn('grep', { strict: null }),
        ],
        tool_choice: { type: 'function', name: 'grep' },
        parallel_tool_calls: false,
        temperature: 0.2,
        top_p: 0.9,
        top_logprobs: 20,
        max_output_tokens: 16,
        reasoning: { effort: 'max', summary: 'detailed', context: 'all_turns', mode: 'pro' },
        include: ['reasoning.encrypted_content', 'message.output_text.logprobs', 'message.input_image.image_url'],
        text: {
          format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, description: 'd', strict: true },
          verbosity: 'low',
        },
        truncation: 'auto',
        prompt_cache_key: 'k',
        prompt_cache_options: { mode: 'explicit', ttl: '30m' },
        prompt_cache_retention: '24h',
        metadata: { run: 'r1', [`k${'x'.repeat(63)}`]: 'v'.repeat(512) },
        user: 'u',
        safety_identifier: 's'.repeat(64),
        service_tier: 'flex',
        store: true,
        moderation: { model: 'omni-moderation-latest', policy: { input: { mode: 'score' }, output: null } },
      }),
    ],
    ['tool_choice "none"', session([], { tools, tool_choice: 'none' })],
    ['tool_choice "required"', session([], { tools, tool_choice: 'required' })],
    [
      'tool_choice allowed_tools',
      session([], { tools, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'grep' }] } }),
    ],
    ['text formats "text" and "json_object"', session([], { text: { format: { type: 'json_object' } } })],
  ])('%s', (_name, input) => {
    const before = JSON.stringify(input);
    expect(parseOpenAIResponsesSession(input)).toBe(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('is validation only: the schema’s own output is a rebuilt copy, which is why the input is returned', () => {
    const input = { tools, input: [user('hi')], model: 'gpt-5', format: 'openai-responses' };
    const rebuilt = openAIResponsesSessionSchema().parse(input);
    expect(rebuilt).not.toBe(input);
    expect(Object.keys(input)).toEqual(['tools', 'input', 'model', 'format']);
    expect(Object.keys(rebuilt)).toEqual(['format', 'model', 'input', 'tools']);
    expect(Object.keys(parseOpenAIResponsesSession(input))).toEqual(['tools', 'input', 'model', 'format']);
  });
});

describe('a session made of the openai SDK’s own values', () => {
  /** A client whose fetch keeps each request body and answers with the next of `outputs`, as a response. */
  function recordingClient(outputs: ResponsesResponse['output'][]) {
    const bodies: unknown[] = [];
    const client = new OpenAI({
      apiKey: 'test-key',
      baseURL: 'http://127.0.0.1:9/v1',
      maxRetries: 0,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        const response = {
          id: `resp_${bodies.length}`,
          object: 'response',
          created_at: 0,
          model: 'gpt-5',
          status: 'completed',
          output: outputs[bodies.length - 1] ?? [],
        };
        return new Response(JSON.stringify(response), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    return { client, bodies };
  }

  it('an agent loop on client.responses.create: each body the SDK sent, with "format" added, parses (JSON round-tripped)', async () => {
    const firstTurn: ResponsesResponse['output'] = [
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Read the README first.' }],
        encrypted_content: 'gAAAAABpF3x0==',
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}', status: 'completed' },
    ];
    const lastTurn: ResponsesResponse['output'] = [
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'It is forkpool.', annotations: [], logprobs: [] }],
      },
    ];
    const { client, bodies } = recordingClient([firstTurn, lastTurn]);

    const tools: FunctionTool[] = [
      { type: 'function', name: 'read_file', description: 'Reads a file', parameters: READ_FILE_PARAMETERS, strict: true },
    ];
    const input: ResponseInputItem[] = [
      { role: 'developer', content: 'You are a terse coding agent.' },
      { role: 'user', content: [{ type: 'input_text', text: 'What is this project?' }] },
    ];
    const params: ResponseCreateParamsNonStreaming = {
      model: 'gpt-5',
      instructions: 'Answer from the files.',
      input,
      tools,
      tool_choice: 'auto',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      prompt_cache_key: 'readme-agent',
      max_output_tokens: 1024,
    };
    const first = await client.responses.create(params);
    // What an agent sends back: the response's reasoning, messages and calls, then its outputs.
    const produced = first.output.flatMap((item) =>
      item.type === 'reasoning' || item.type === 'function_call' || item.type === 'message' ? [item] : [],
    );
    const answers: ResponseInputItem[] = produced.flatMap((item) =>
      item.type === 'function_call' ? [{ type: 'function_call_output' as const, call_id: item.call_id, output: '# forkpool' }] : [],
    );
    const next: ResponseCreateParamsNonStreaming = { ...params, input: [...input, ...produced, ...answers] };
    const last = await client.responses.create(next);

    expect(bodies).toEqual([JSON.parse(JSON.stringify(params)), JSON.parse(JSON.stringify(next))]);
    const asSession = (body: unknown): unknown => JSON.parse(JSON.stringify({ format: 'openai-responses', ...(body as object) }));
    for (const body of bodies) {
      const json = asSession(body);
      expect(parseOpenAIResponsesSession(json, 'body.json')).toBe(json);
    }
    // A parent mid-turn: the first response's call, not yet answered.
    const midTurn = asSession({ ...params, input: [...input, ...produced] });
    expect(parseOpenAIResponsesSession(midTurn)).toBe(midTurn);
    // The whole conversation, the last answer included.
    const whole = asSession({ ...next, input: [...(next.input as ResponseInputItem[]), ...last.output] });
    const parsed = parseOpenAIResponsesSession(whole);
    expect(parsed).toBe(whole);
    expect((parsed.input as ResponsesInputItem[]).map((item) => ('role' in item ? item.role : item.type))).toEqual([
      'developer',
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
      'assistant',
    ]);
  });
});

const UNANSWERED = (id: string) =>
  `the function call "${id}" is not answered: a function_call_output with its call_id must follow it (a call may stay unanswered only at the end of "input", with nothing but function calls, their outputs and reasoning items after it)`;
const REASONING_ALONE =
  'a reasoning item must be followed by what the model produced after it, an assistant message or a function_call (other reasoning items may stand between): the API refuses a reasoning item "provided without its required following item"';
const TOOL_SHAPE = '{ "type": "function", "name", "description", "parameters", "strict" }';
const BUILT_IN_ITEM = (kind: string, tool: string) =>
  `"${kind}" items come from ${tool}, a built-in tool forkpool does not run: forkpool runs the session's own function tools`;
const CHAT_SETTING = 'is a Chat Completions setting the Responses API does not take; leave it out';
const OUTPUT_MESSAGE = 'an assistant message with content parts is an output message, as the response gave it';
const ASSISTANT_PARTS_ONLY =
  'an assistant message holds output_text and refusal parts (the API refuses input parts from the assistant): give a hand-written turn as a string';

describe('parseOpenAIResponsesSession: each rule refused with its path and its words', () => {
  it.each<[string, unknown, string]>([
    // The session.
    ['an array', [], 's.json: a session must be a JSON object ({ "format": "openai-responses", "model", "input", … })'],
    [
      'no format',
      { model: 'm', input: 'hi' },
      's.json: format: is required ("openai-responses" for a session in the Responses API\'s shape)',
    ],
    ['another format', session([], { format: 'openai-chat' }), 's.json: format: must be "openai-responses"'],
    ['no model', { format: 'openai-responses', input: 'hi' }, 's.json: model: is required'],
    [
      "Chat Completions' messages instead of input",
      { format: 'openai-responses', model: 'm', messages: [user()] },
      's.json: input: is required (the conversation: a string, or an array of input items; Chat Completions\' "messages" are "input" here)',
    ],
    [
      'messages beside input',
      session([], { messages: [] }),
      's.json: messages: is Chat Completions\': a Responses session\'s conversation goes in "input" (a string, or an array of items)',
    ],
    [
      'an unknown field',
      session([], { extra: 1 }),
      's.json: extra: is not a field of an openai-responses session (allowed: format, model, instructions, input, tools, tool_choice, parallel_tool_calls, temperature, top_p, top_logprobs, max_output_tokens, reasoning, include, text, truncation, prompt_cache_key, prompt_cache_options, prompt_cache_retention, metadata, user, safety_identifier, service_tier, store, moderation)',
    ],
    [
      'max_tokens',
      session([], { max_tokens: 100 }),
      's.json: max_tokens: is Chat Completions\': the Responses API calls it "max_output_tokens"',
    ],
    [
      'max_completion_tokens',
      session([], { max_completion_tokens: 100 }),
      's.json: max_completion_tokens: is Chat Completions\': the Responses API calls it "max_output_tokens"',
    ],
    [
      'response_format',
      session([], { response_format: { type: 'json_object' } }),
      's.json: response_format: is Chat Completions\': the Responses API takes it as "text": { "format": … }',
    ],
    [
      'reasoning_effort',
      session([], { reasoning_effort: 'low' }),
      's.json: reasoning_effort: is Chat Completions\': the Responses API takes it as "reasoning": { "effort" }',
    ],
    [
      'system',
      session([], { system: 'x' }),
      's.json: system: is not a Responses session field: the system prompt goes in "instructions" (or a "system" or "developer" message in "input")',
    ],
    ['seed', session([], { seed: 1 }), `s.json: seed: ${CHAT_SETTING}`],
    ['stop', session([], { stop: ['END'] }), `s.json: stop: ${CHAT_SETTING}`],
    [
      'stream',
      session([], { stream: true }),
      's.json: stream: is not a session field: forkpool decides how each request is sent; leave "stream" out',
    ],
    [
      'previous_response_id',
      session([], { previous_response_id: 'resp_1' }),
      's.json: previous_response_id: is not part of a session: a session is the whole conversation, sent as it is (a fork cannot send what a stored response holds); put its items in "input"',
    ],
    [
      'conversation',
      session([], { conversation: 'conv_1' }),
      's.json: conversation: is not part of a session: a session is the whole conversation, sent as it is (items an OpenAI conversation keeps are not in it, and each fork\'s response would be added to it); put its items in "input"',
    ],
    [
      'a stored prompt',
      session([], { prompt: { id: 'pmpt_1' } }),
      's.json: prompt: is not part of a session: a session is the whole conversation, sent as it is, and a stored prompt template lives at OpenAI; put its text in "instructions"',
    ],
    [
      'background',
      session([], { background: true }),
      "s.json: background: is not part of a session: forkpool runs each fork's request and reads its answer itself (a background response is polled)",
    ],
    [
      'context_management',
      session([], { context_management: [{ type: 'compaction' }] }),
      "s.json: context_management: is not part of a session: compaction would rewrite a fork's conversation mid-request, and a fork sends the session's items as they are",
    ],
    ['an empty input string', session([], { input: '' }), 's.json: input: must not be empty'],
    ['an empty input array', session([], { input: [] }), 's.json: input: must hold at least one item'],
    ['input of a number', session([], { input: 3 }), 's.json: input: must be a string or an array of input items, not the number 3'],
    ['instructions of a number', session([], { instructions: 3 }), 's.json: instructions: must be a string, not the number 3'],
    // Settings.
    [
      'max_output_tokens under 16',
      session([], { max_output_tokens: 10 }),
      's.json: max_output_tokens: must be an integer of at least 16 (the API refuses fewer output tokens)',
    ],
    [
      'a fractional max_output_tokens',
      session([], { max_output_tokens: 100.5 }),
      's.json: max_output_tokens: must be an integer of at least 16',
    ],
    ['top_logprobs over 20', session([], { top_logprobs: 21 }), 's.json: top_logprobs: must be an integer from 0 to 20'],
    ['a string temperature', session([], { temperature: '0.2' }), 's.json: temperature: must be a number, not a string'],
    [
      'an unknown effort',
      session([], { reasoning: { effort: 'extreme' } }),
      's.json: reasoning.effort: must be "none", "minimal", "low", "medium", "high", "xhigh" or "max" (or null)',
    ],
    [
      'generate_summary',
      session([], { reasoning: { generate_summary: 'auto' } }),
      's.json: reasoning.generate_summary: is deprecated: use "summary"',
    ],
    [
      'an unknown include',
      session([], { include: ['reasoning.content'] }),
      's.json: include[0]: must be "file_search_call.results", "web_search_call.results", "web_search_call.action.sources", "message.input_image.image_url", "computer_call_output.output.image_url", "code_interpreter_call.outputs", "reasoning.encrypted_content" or "message.output_text.logprobs", not "reasoning.content"',
    ],
    [
      'a json_schema format nested as Chat Completions nests it',
      session([], { text: { format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } } }),
      's.json: text.format.name: is required (a Responses "json_schema" format holds "name", "schema" and "strict" itself)',
    ],
    [
      "a json_schema format with Chat Completions' json_schema beside its fields",
      session([], { text: { format: { type: 'json_schema', name: 'x', schema: {}, json_schema: {} } } }),
      's.json: text.format.json_schema: is Chat Completions\' nesting: a Responses "json_schema" format holds "name", "schema" and "strict" itself',
    ],
    ['an unknown truncation', session([], { truncation: 'on' }), 's.json: truncation: must be "auto" or "disabled" (or null)'],
    [
      'a prompt cache ttl of 1h',
      session([], { prompt_cache_options: { ttl: '1h' } }),
      's.json: prompt_cache_options.ttl: must be "30m" (the only prompt cache ttl OpenAI takes today)',
    ],
    [
      'an unknown retention',
      session([], { prompt_cache_retention: '1h' }),
      's.json: prompt_cache_retention: must be "in_memory" or "24h" (or null)',
    ],
    [
      'metadata of 17 keys',
      session([], { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }),
      's.json: metadata: holds 17 keys: OpenAI takes at most 16',
    ],
    ['a metadata number', session([], { metadata: { a: 1 } }), 's.json: metadata.a: a metadata value must be a string'],
    [
      'a metadata value of 513 characters',
      session([], { metadata: { a: 'x'.repeat(513) } }),
      's.json: metadata.a: a metadata value must be at most 512 characters',
    ],
    [
      'a metadata key of 65 characters',
      session([], { metadata: { [`k${'x'.repeat(64)}`]: 'v' } }),
      `s.json: metadata.k${'x'.repeat(64)}: a metadata key must be at most 64 characters`,
    ],
    [
      'a safety_identifier of 65 characters',
      session([], { safety_identifier: 'x'.repeat(65) }),
      's.json: safety_identifier: must be at most 64 characters',
    ],
    [
      'an unknown service tier',
      session([], { service_tier: 'fast' }),
      's.json: service_tier: must be "auto", "default", "flex", "scale" or "priority" (or null)',
    ],
    ['moderation without a model', session([], { moderation: { policy: null } }), 's.json: moderation.model: is required'],
    // Tools and tool choice.
    ['tools as an object', session([], { tools: { read_file: {} } }), `s.json: tools: must be an array of tools (${TOOL_SHAPE})`],
    [
      'a built-in tool',
      session([], { tools: [{ type: 'web_search_preview' }] }),
      `s.json: tools[0].type: "web_search_preview" is a built-in tool, which forkpool does not run: forkpool runs the session's own function tools (${TOOL_SHAPE})`,
    ],
    [
      'the code interpreter',
      session([], { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }),
      `s.json: tools[0].type: "code_interpreter" is a built-in tool, which forkpool does not run: forkpool runs the session's own function tools (${TOOL_SHAPE})`,
    ],
    [
      'a custom tool',
      session([], { tools: [{ type: 'custom', name: 'x' }] }),
      `s.json: tools[0].type: custom tools (free-form text input) are not supported: forkpool runs function tools, with JSON arguments (${TOOL_SHAPE})`,
    ],
    [
      'a namespace tool',
      session([], { tools: [{ type: 'namespace', name: 'crm', description: 'd', tools: [] }] }),
      `s.json: tools[0].type: namespace tools are not supported: declare each function as a tool of its own (${TOOL_SHAPE})`,
    ],
    [
      'a tool nested as Chat Completions nests it',
      session([], { tools: [{ type: 'function', function: { name: 'x', parameters: {} } }] }),
      `s.json: tools[0].name: is required (a Responses function tool is flat: ${TOOL_SHAPE})`,
    ],
    ['a tool without type', session([], { tools: [{ name: 'x' }] }), 's.json: tools[0].type: is required (allowed: "function")'],
    [
      'a tool without parameters',
      session([], { tools: [{ type: 'function', name: 'x', strict: true }] }),
      's.json: tools[0].parameters: is required (the JSON Schema of the function\'s arguments: { "type": "object", … })',
    ],
    [
      'a tool with null parameters',
      session([], { tools: [fn('x', { parameters: null })] }),
      "s.json: tools[0].parameters: must be a JSON object (the JSON Schema of the function's arguments), not null",
    ],
    [
      'a tool without strict',
      session([], { tools: [{ type: 'function', name: 'x', parameters: {} }] }),
      's.json: tools[0].strict: is required (true, false or null: whether the API holds the arguments to "parameters"; the SDK types it required)',
    ],
    [
      'a function name with a dot',
      session([], { tools: [fn('fs.read')] }),
      's.json: tools[0].name: "fs.read" is not a function name OpenAI takes: 1 to 64 letters, digits, _ and -',
    ],
    [
      'a function name of 65 characters',
      session([], { tools: [fn('x'.repeat(65))] }),
      `s.json: tools[0].name: "${'x'.repeat(65)}" is not a function name OpenAI takes: 1 to 64 letters, digits, _ and -`,
    ],
    [
      "Anthropic's input_schema",
      session([], { tools: [fn('x', { input_schema: {} })] }),
      's.json: tools[0].input_schema: is Anthropic\'s: a Responses function tool\'s JSON Schema goes in "parameters"',
    ],
    ['a function declared twice', session([], { tools: [fn('x'), fn('x')] }), 's.json: tools[1].name: the function "x" is declared twice'],
    [
      'programmatic callers',
      session([], { tools: [fn('x', { allowed_callers: ['direct', 'programmatic'] })] }),
      's.json: tools[0].allowed_callers[1]: must be "direct": programmatic tool calling is a built-in tool forkpool does not run (the model calls a function itself)',
    ],
    [
      'deferred loading',
      session([], { tools: [fn('x', { defer_loading: true })] }),
      's.json: tools[0].defer_loading: deferred loading works with tool search, a built-in tool forkpool does not run: leave "defer_loading" out',
    ],
    [
      'a tool_choice naming an undeclared function',
      session([], { tools, tool_choice: { type: 'function', name: 'write_file' } }),
      's.json: tool_choice.name: names the function "write_file", which "tools" does not declare',
    ],
    [
      'a tool_choice nested as Chat Completions nests it',
      session([], { tools, tool_choice: { type: 'function', function: { name: 'grep' } } }),
      's.json: tool_choice.name: is required (a Responses tool choice names the function itself: { "type": "function", "name" })',
    ],
    [
      'tool_choice "any"',
      session([], { tools, tool_choice: 'any' }),
      's.json: tool_choice: must be "none", "auto", "required" or a tool choice object ({ "type": "function", "name" }), not "any"',
    ],
    [
      'a built-in tool choice',
      session([], { tools, tool_choice: { type: 'file_search' } }),
      `s.json: tool_choice.type: "file_search" is a built-in tool, which forkpool does not run: forkpool runs the session's own function tools (${TOOL_SHAPE})`,
    ],
    // Items.
    ['an item that is a string', session(['hi']), 's.json: input[1]: an input item must be a JSON object, not a string'],
    [
      'an item without type or role',
      session([{ content: 'x' }]),
      's.json: input[1].type: is required (allowed: "message", "function_call", "function_call_output", "reasoning", "item_reference" or "compaction")',
    ],
    [
      'an unknown item type',
      session([{ type: 'note', text: 'x' }]),
      's.json: input[1].type: must be "message", "function_call", "function_call_output", "reasoning", "item_reference" or "compaction", not "note"',
    ],
    [
      'a web_search_call',
      session([{ type: 'web_search_call', id: 'ws_1', status: 'completed', action: {} }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('web_search_call', 'web search')}`,
    ],
    [
      'a file_search_call',
      session([{ type: 'file_search_call', id: 'fs_1', queries: [], status: 'completed' }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('file_search_call', 'file search')}`,
    ],
    [
      'a computer_call_output',
      session([{ type: 'computer_call_output', call_id: 'c', output: {} }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('computer_call_output', 'computer use')}`,
    ],
    [
      'a code_interpreter_call',
      session([{ type: 'code_interpreter_call', id: 'ci_1' }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('code_interpreter_call', 'the code interpreter')}`,
    ],
    ['an mcp_call', session([{ type: 'mcp_call', id: 'm' }]), `s.json: input[1].type: ${BUILT_IN_ITEM('mcp_call', 'MCP')}`],
    [
      'an image_generation_call',
      session([{ type: 'image_generation_call', id: 'ig_1', result: null, status: 'completed' }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('image_generation_call', 'image generation')}`,
    ],
    [
      'a local_shell_call_output',
      session([{ type: 'local_shell_call_output', id: 'x', output: '' }]),
      `s.json: input[1].type: ${BUILT_IN_ITEM('local_shell_call_output', 'the local shell tool')}`,
    ],
    [
      'a custom_tool_call',
      session([{ type: 'custom_tool_call', call_id: 'c', name: 'x', input: 'y' }]),
      's.json: input[1].type: custom tool calls (free-form text input) are not supported: forkpool runs function tools, with JSON arguments',
    ],
    [
      'a compaction_trigger',
      session([{ type: 'compaction_trigger' }]),
      "s.json: input[1].type: asks the API to compact the context instead of answering: a fork asks for the model's next turn, so leave it out",
    ],
    [
      'additional_tools',
      session([{ type: 'additional_tools', role: 'developer', tools: [] }]),
      's.json: input[1].type: adds tools mid-conversation, which forkpool does not take: declare the session\'s function tools in "tools"',
    ],
    // Messages.
    [
      'a message without role',
      session([{ type: 'message', content: 'x' }]),
      's.json: input[1].role: is required (allowed: "user", "assistant", "system" or "developer")',
    ],
    [
      'an unknown role',
      session([{ role: 'bot', content: 'x' }]),
      's.json: input[1].role: must be "user", "assistant", "system" or "developer", not "bot"',
    ],
    [
      "Chat Completions' tool role",
      session([call('c1'), { role: 'tool', tool_call_id: 'c1', content: 'ok' }]),
      's.json: input[2].role: the "tool" role is Chat Completions\': a function\'s result is an item of its own, { "type": "function_call_output", "call_id", "output" }',
    ],
    [
      "Gemini's model role",
      session([{ role: 'model', content: 'x' }]),
      's.json: input[1].role: the "model" role is Gemini\'s: the model\'s messages are "assistant" messages',
    ],
    [
      'a message typed null',
      session([{ role: 'user', content: 'x', type: null }]),
      's.json: input[1].type: must be "message" (or left out)',
    ],
    [
      "Chat Completions' tool_calls",
      session([{ role: 'assistant', content: 'Reading.', tool_calls: [] }]),
      's.json: input[1].tool_calls: is Chat Completions\': a Responses call is an item of its own, { "type": "function_call", "call_id", "name", "arguments" }, after the message',
    ],
    [
      'a name on a message',
      session([{ role: 'user', content: 'x', name: 'bob' }]),
      's.json: input[1].name: is not a field of a "user" message (allowed: role, content, phase, type)',
    ],
    [
      'user content of a number',
      session([user(3)]),
      's.json: input[1].content: must be a string or an array of input_text, input_image and input_file parts, not the number 3',
    ],
    ['a part that is a string', session([user(['x'])]), 's.json: input[1].content[0]: a content part must be a JSON object, not a string'],
    [
      "Chat Completions' text part",
      session([user([{ type: 'text', text: 'x' }])]),
      's.json: input[1].content[0].type: is Chat Completions\' part type: a Responses input part is { "type": "input_text", "text" }',
    ],
    [
      "Chat Completions' image_url part",
      session([user([{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }])]),
      's.json: input[1].content[0].type: is Chat Completions\' part type: a Responses image is { "type": "input_image", "image_url", "detail" }',
    ],
    [
      'an output_text part in a user message',
      session([user([text('x')])]),
      "s.json: input[1].content[0].type: output_text and refusal parts are the model's: they go in an assistant message",
    ],
    ['an input_text part without text', session([user([{ type: 'input_text' }])]), 's.json: input[1].content[0].text: is required'],
    [
      'an implicit cache breakpoint',
      session([user([{ type: 'input_text', text: 'x', prompt_cache_breakpoint: { mode: 'implicit' } }])]),
      's.json: input[1].content[0].prompt_cache_breakpoint.mode: must be "explicit" (the only mode of a prompt_cache_breakpoint)',
    ],
    [
      'an input_image without detail',
      session([user([{ type: 'input_image', image_url: 'https://example.com/a.png' }])]),
      's.json: input[1].content[0].detail: is required ("low", "high", "auto" or "original": the SDK types it required)',
    ],
    [
      'an input_image without a source',
      session([user([{ type: 'input_image', detail: 'auto', image_url: null }])]),
      's.json: input[1].content[0]: an input_image part needs "image_url" or "file_id"',
    ],
    [
      'an input_file without a source',
      session([user([{ type: 'input_file', filename: 'a.pdf' }])]),
      's.json: input[1].content[0]: an input_file part needs "file_data", "file_id" or "file_url"',
    ],
    [
      'a message with a status and string content',
      session([{ role: 'user', content: 'x', status: 'completed' }]),
      's.json: input[1].content: must be an array of input_text, input_image and input_file parts (a message with a "status" holds parts, not a string), not a string',
    ],
    [
      'a message with a status and a phase',
      session([{ role: 'user', content: [], status: 'completed', phase: 'commentary' }]),
      's.json: input[1].phase: is not a field of a "user" message with a "status" (allowed: role, content, status, type)',
    ],
    [
      'an unknown status',
      session([{ role: 'developer', content: [], status: 'done' }]),
      's.json: input[1].status: must be "in_progress", "completed" or "incomplete"',
    ],
    [
      'an unknown phase',
      session([{ role: 'assistant', content: 'x', phase: 'final' }]),
      's.json: input[1].phase: must be "commentary" or "final_answer" (or null)',
    ],
    [
      'an assistant message of null',
      session([{ role: 'assistant', content: null }]),
      's.json: input[1].content: must be a string, or an array of output_text and refusal parts, not null',
    ],
    [
      'an id on an assistant message of a string',
      session([{ role: 'assistant', content: 'x', id: 'msg_1' }]),
      `s.json: input[1].id: ${OUTPUT_MESSAGE}: its content is an array of output_text and refusal parts`,
    ],
    [
      'an assistant message of parts without id',
      session([{ role: 'assistant', content: [text('x')] }]),
      `s.json: input[1].id: is required (${OUTPUT_MESSAGE}: "msg_…")`,
    ],
    [
      'an assistant message of parts without status',
      session([{ role: 'assistant', id: 'msg_1', content: [text('x')] }]),
      `s.json: input[1].status: is required (${OUTPUT_MESSAGE}: "in_progress", "completed" or "incomplete")`,
    ],
    [
      'an assistant message of parts without type',
      session([{ role: 'assistant', id: 'msg_1', status: 'completed', content: [text('x')] }]),
      `s.json: input[1].type: is required ("message": ${OUTPUT_MESSAGE})`,
    ],
    [
      'an input_text part from the assistant',
      session([said('msg_1', { content: [{ type: 'input_text', text: 'x' }] })]),
      `s.json: input[1].content[0].type: ${ASSISTANT_PARTS_ONLY}`,
    ],
    [
      "Chat Completions' text part from the assistant",
      session([said('msg_1', { content: [{ type: 'text', text: 'x' }] })]),
      's.json: input[1].content[0].type: is Chat Completions\' part type: the model\'s text is { "type": "output_text", "text", "annotations": [] }',
    ],
    [
      'an output_text without annotations',
      session([said('msg_1', { content: [{ type: 'output_text', text: 'x' }] })]),
      's.json: input[1].content[0].annotations: is required (the annotations the response gave: [] for none)',
    ],
    [
      'an unknown annotation',
      session([said('msg_1', { content: [{ ...text('x'), annotations: [{ type: 'citation' }] }] })]),
      's.json: input[1].content[0].annotations[0].type: must be "file_citation", "url_citation", "container_file_citation" or "file_path", not "citation"',
    ],
    [
      'a url_citation without its end',
      session([
        said('msg_1', { content: [{ ...text('x'), annotations: [{ type: 'url_citation', url: 'u', title: 't', start_index: 0 }] }] }),
      ]),
      's.json: input[1].content[0].annotations[0].end_index: is required',
    ],
    // Function calls and their outputs.
    ['a call without call_id', session([{ type: 'function_call', name: 'x', arguments: '{}' }]), 's.json: input[1].call_id: is required'],
    ['a call with an empty name', session([call('c1', '')]), 's.json: input[1].name: a function name must not be empty'],
    [
      'arguments as an object',
      session([call('c1', 'x', { arguments: { path: 'a' } })]),
      's.json: input[1].arguments: must be a string (the arguments as JSON text, as the model wrote them), not an object',
    ],
    [
      'a call nested as Chat Completions nests it',
      session([{ type: 'function_call', call_id: 'c1', function: { name: 'x', arguments: '{}' } }]),
      's.json: input[1].name: is required (a function_call item holds "name" and "arguments" itself, not in Chat Completions\' "function")',
    ],
    [
      "a call with Chat Completions' function beside its fields",
      session([{ ...call('c1'), function: {} }]),
      's.json: input[1].function: is Chat Completions\' nesting: a function_call item holds "name" and "arguments" itself',
    ],
    [
      'a call to a namespace',
      session([call('c1', 'x', { namespace: 'crm' })]),
      's.json: input[1].namespace: namespace tools are not supported: forkpool runs the session\'s own function tools, declared in "tools"',
    ],
    [
      'a call by a program',
      session([call('c1', 'x', { caller: { type: 'program', caller_id: 'p' } })]),
      "s.json: input[1].caller.type: calls made by programmatic tool calling (a built-in tool) are not supported: forkpool runs the session's own function tools",
    ],
    [
      'parsed_arguments from responses.parse()',
      session([call('c1', 'x', { parsed_arguments: null })]),
      "s.json: input[1].parsed_arguments: is added by the openai SDK's responses.parse() to what it returns, and is not an input field: leave it out",
    ],
    [
      'an output without output',
      session([call('c1'), { type: 'function_call_output', call_id: 'c1' }]),
      's.json: input[2].output: is required',
    ],
    [
      "an output's content",
      session([call('c1'), { ...output('c1'), content: 'x' }]),
      's.json: input[2].content: a function_call_output carries the result in "output" (a string, or an array of input_text, input_image and input_file parts)',
    ],
    [
      'an output of a number',
      session([call('c1'), output('c1', 3)]),
      's.json: input[2].output: must be a string or an array of input_text, input_image and input_file parts, not the number 3',
    ],
    [
      'an output_text part in an output',
      session([call('c1'), output('c1', [text('x')])]),
      's.json: input[2].output[0].type: must be "input_text", "input_image" or "input_file", not "output_text"',
    ],
    [
      'an output image without a source',
      session([call('c1'), output('c1', [{ type: 'input_image' }])]),
      's.json: input[2].output[0]: an input_image part needs "image_url" or "file_id"',
    ],
    // Reasoning, references, compaction.
    ['a reasoning item without id', session([{ type: 'reasoning', summary: [] }, said('msg_1')]), 's.json: input[1].id: is required'],
    [
      'a reasoning item without summary',
      session([{ type: 'reasoning', id: 'rs_1' }, said('msg_1')]),
      's.json: input[1].summary: is required (the summary the response gave: [] for none)',
    ],
    [
      'a summary part of the wrong type',
      session([reasoning('rs_1', { summary: [{ type: 'text', text: 'x' }] }), said('msg_1')]),
      's.json: input[1].summary[0].type: must be "summary_text", not "text"',
    ],
    [
      'a reasoning content part of the wrong type',
      session([reasoning('rs_1', { content: [{ type: 'summary_text', text: 'x' }] }), said('msg_1')]),
      's.json: input[1].content[0].type: must be "reasoning_text", not "summary_text"',
    ],
    [
      'encrypted content of a number',
      session([reasoning('rs_1', { encrypted_content: 1 }), said('msg_1')]),
      's.json: input[1].encrypted_content: must be a string, not the number 1',
    ],
    [
      'reasoning text',
      session([reasoning('rs_1', { text: 'x' }), said('msg_1')]),
      's.json: input[1].text: a reasoning item holds its text in "summary" ({ "type": "summary_text", "text" }) and "content"',
    ],
    ['reasoning last', session([reasoning('rs_1')]), `s.json: input[1].type: ${REASONING_ALONE}`],
    ['reasoning before a user message', session([reasoning('rs_1'), user()]), `s.json: input[1].type: ${REASONING_ALONE}`],
    ['reasoning before an output', session([call('c1'), reasoning('rs_1'), output('c1')]), `s.json: input[2].type: ${REASONING_ALONE}`],
    ['two reasoning items last', session([reasoning('rs_1'), reasoning('rs_2')]), `s.json: input[1].type: ${REASONING_ALONE}`],
    [
      'an item_reference with an empty id',
      session([{ type: 'item_reference', id: '' }]),
      's.json: input[1].id: an item id must not be empty',
    ],
    [
      'an untyped item_reference with another field',
      session([{ id: 'msg_1', text: 'x' }]),
      's.json: input[1].text: is not a field of an item_reference (allowed: type, id)',
    ],
    ['a compaction item without its content', session([{ type: 'compaction' }]), 's.json: input[1].encrypted_content: is required'],
    // Ids, and calls paired with their outputs.
    [
      'an item id used twice',
      session([said('msg_1'), user(), said('msg_1')]),
      's.json: input[3].id: the item id "msg_1" is already used by input[1]: the API refuses duplicate items',
    ],
    [
      'a call_id used twice',
      session([call('c1'), output('c1'), call('c1'), output('c1')]),
      's.json: input[3].call_id: the call_id "c1" is already used by input[1]; call_ids must be unique in a session',
    ],
    [
      'an output before its call',
      session([output('c1'), call('c1')]),
      's.json: input[1].call_id: answers the function call "c1" of input[2], which comes after it: an output follows its call',
    ],
    [
      'an output answering no call',
      session([call('c1'), output('c1'), output('c9')]),
      's.json: input[3].call_id: "c9" answers no function_call: a function_call_output answers a function_call before it in "input"',
    ],
    [
      'a call answered twice',
      session([call('c1'), output('c1'), output('c1')]),
      's.json: input[3].call_id: the function call "c1" is already answered by input[2]; a function call is answered once',
    ],
    ['a call left unanswered before a user message', session([call('c1'), user()]), `s.json: input[1].call_id: ${UNANSWERED('c1')}`],
    [
      'a call left unanswered before an assistant message',
      session([call('c1'), call('c2'), output('c2'), said('msg_1')]),
      `s.json: input[1].call_id: ${UNANSWERED('c1')}`,
    ],
    [
      'a call left unanswered before an item_reference',
      session([call('c1'), { type: 'item_reference', id: 'msg_1' }]),
      `s.json: input[1].call_id: ${UNANSWERED('c1')}`,
    ],
    // JSON.
    [
      'a __proto__ key',
      JSON.parse('{"format":"openai-responses","model":"m","input":[{"role":"user","content":"x","__proto__":{}}]}'),
      's.json: input[0].__proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    ],
    [
      'a NaN temperature',
      session([], { temperature: Number.NaN }),
      's.json: temperature: NaN is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    ],
  ])('%s', (_name, input, message) => {
    const err = errorOf(() => parseOpenAIResponsesSession(input, 's.json'));
    expect(err.message).toBe(message);
    expect(err.file).toBe('s.json');
  });

  it('reports the path and the rule separately, and no file when none is given', () => {
    const err = errorOf(() => parseOpenAIResponsesSession(session([call('c1', '')])));
    expect(err.file).toBeUndefined();
    expect(err.path).toBe('input[1].name');
    expect(err.rule).toBe('a function name must not be empty');
    expect(err.message).toBe('input[1].name: a function name must not be empty');
  });

  it('the schema alone says the same (zod issues with paths)', () => {
    const parsed = openAIResponsesSessionSchema().safeParse(session([call('c1'), user()]));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['input', 1, 'call_id'], message: UNANSWERED('c1') });
  });
});

describe('types', () => {
  it('session items are items the openai SDK takes, and a session minus format is a create() body', () => {
    expectTypeOf<ResponsesInputItem>().toExtend<ResponseInputItem>();
    expectTypeOf<ResponsesFunctionTool>().toExtend<FunctionTool>();
    expectTypeOf<Omit<OpenAIResponsesSession, 'format'>>().toExtend<ResponseCreateParamsNonStreaming>();
    expectTypeOf(parseOpenAIResponsesSession).returns.toEqualTypeOf<OpenAIResponsesSession>();
    // What is refused is not in the types either.
    expectTypeOf<ResponseFunctionWebSearch>().not.toExtend<ResponsesInputItem>();
    expectTypeOf<ResponseCustomToolCall>().not.toExtend<ResponsesInputItem>();
    expectTypeOf<WebSearchTool>().not.toExtend<ResponsesFunctionTool>();
    expectTypeOf<{ role: 'assistant'; content: [{ type: 'input_text'; text: string }] }>().not.toExtend<ResponsesInputItem>();
  });

  // vitest does not type-check test files (and `tsc -p .` covers src only), so the assertions
  // above are compiled here: a type that drifts from the SDK's fails this test.
  it('this file type-checks against the openai SDK', { timeout: 120_000 }, () => {
    expect(typeErrorsOf(fileURLToPath(import.meta.url))).toEqual([]);
  });
});
