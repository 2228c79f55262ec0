import OpenAI, { BadRequestError, NotFoundError, RateLimitError } from 'openai';
import type {
  FunctionTool,
  Response as ApiResponse,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { padding, serversClosedAfterEach } from './fixtures/local-server/client.js';

/*
 * The local server's Responses API (POST /v1/responses), through the official openai SDK only:
 * against `forkpool serve --usage openai` in a process of its own, as users run it (needs `npm run
 * build`), and against an in-process server where the raw request bodies are looked at.
 */

const MODEL = 'gpt-4.1';
/** OpenAI's prompt cache: hits in increments of 128 tokens, from 1,024 (openai/cache-presets.ts). */
const BLOCK = 128;

let serve: ServeProcess;
let ai: OpenAI;
beforeAll(async () => {
  serve = await startServe(['--usage', 'openai']);
  ai = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(async () => {
  await serve?.stop();
});

const start = serversClosedAfterEach();

/** The rejection of a call. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the call to fail'),
    (err: unknown) => err,
  );
}

/** Output items sent back as input, as a client keeping its own conversation does (the SDK types the two apart). */
const asInput = (output: readonly ResponseOutputItem[]): ResponseInputItem[] => output as ResponseInputItem[];

/** The API's Response carries `store`; the SDK's Response type does not name it. */
const storeOf = (response: ApiResponse): unknown => (response as unknown as { store?: unknown }).store;

/** The events' types, a run of deltas as one. */
const eventRuns = (events: readonly ResponseStreamEvent[]): string[] =>
  events.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]);

const tools: FunctionTool[] = [
  {
    type: 'function',
    name: 'read_file',
    description: 'Reads a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    strict: false,
  },
  {
    type: 'function',
    name: 'grep',
    description: 'Searches files.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
    strict: false,
  },
];

describe('local server: OpenAI Responses API', () => {
  it('answers a scripted REPLY with a Response: a message item of output_text, usage with cached_tokens, the settings echoed', async () => {
    const res = await ai.responses.create({
      model: MODEL,
      instructions: 'Answer briefly.',
      input: 'REPLY hello from the simulator',
      temperature: 0.2,
    });
    expect(res.object).toBe('response');
    expect(res.id).toMatch(/^resp_[0-9a-f]+$/);
    expect(res.status).toBe('completed');
    expect(res.model).toBe(MODEL);
    expect(res.output_text).toBe('hello from the simulator');
    expect(res.output).toEqual([
      {
        id: expect.stringMatching(/^msg_[0-9a-f]+$/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'hello from the simulator' }],
      },
    ]);
    expect(res.instructions).toBe('Answer briefly.');
    expect(res.temperature).toBe(0.2);
    expect(res.top_p).toBe(1);
    expect(storeOf(res)).toBe(true);
    expect(res.previous_response_id).toBeNull();
    const usage = res.usage;
    expect(usage?.input_tokens).toBeGreaterThan(0);
    expect(usage?.input_tokens_details).toEqual({ cached_tokens: 0 });
    expect(usage?.output_tokens).toBeGreaterThan(0);
    expect(usage?.output_tokens_details).toEqual({ reasoning_tokens: 0 });
    expect(usage?.total_tokens).toBe((usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0));
    // Stored (store defaults to true): GET /v1/responses/{id} gives it back.
    const again = await ai.responses.retrieve(res.id);
    expect(again.output_text).toBe('hello from the simulator');
    expect(again.usage).toEqual(usage);
  });

  it('streams the events in the API order, numbered from 0; finalResponse has the text and usage of the unstreamed answer', async () => {
    const input = 'TOKENS 120';
    const whole = await ai.responses.create({ model: MODEL, input });
    const stream = ai.responses.stream({ model: MODEL, input });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(eventRuns(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const created = events[0];
    expect(created?.type === 'response.created' && created.response).toMatchObject({
      id: final.id,
      status: 'in_progress',
      output: [],
      usage: null,
    });
    const text = deltas.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
    expect(text).toBe(whole.output_text);
    expect(final.output_text).toBe(whole.output_text);
    expect(final.output_text.length).toBe(120 * 4);
    expect(final.usage).toEqual(whole.usage);
    const done = events.find((e) => e.type === 'response.output_text.done');
    expect(done?.type === 'response.output_text.done' && done.text).toBe(whole.output_text);
    const itemIds = new Set(events.flatMap((e) => ('item_id' in e ? [e.item_id] : [])));
    expect([...itemIds]).toEqual([final.output[0]?.id]);
  });

  it('calls functions as function_call items with call ids, turn by turn (CALL@2), and answers after the outputs come back', async () => {
    const input: ResponseInputItem[] = [
      {
        role: 'user',
        content:
          'CALL read_file {"path":"notes/a.txt"}\nCALL grep {"pattern":"TODO"}\nCALL@2 read_file {"path":"notes/b.txt"}\nREPLY read them all',
      },
    ];
    const first = await ai.responses.create({ model: MODEL, input, tools, store: false });
    const calls = first.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    expect(calls.map((c) => c.name)).toEqual(['read_file', 'grep']);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ path: 'notes/a.txt' }, { pattern: 'TODO' }]);
    expect(calls.every((c) => /^call_/.test(c.call_id) && /^fc_/.test(c.id ?? '') && c.status === 'completed')).toBe(true);
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
    expect(first.output_text).toBe('');

    // The calls sent back as they came, after the reasoning a reasoning model would have made (no
    // turn of its own), then their outputs in the other order: model turn 2.
    const reasoning: ResponseInputItem = {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'Read both.' }],
      encrypted_content: 'gAAAAB-opaque==',
    };
    input.push(
      reasoning,
      ...asInput(first.output),
      ...calls
        .reverse()
        .map((c): ResponseInputItem => ({ type: 'function_call_output', call_id: c.call_id, output: `output of ${c.name}` })),
    );
    const second = await ai.responses.create({ model: MODEL, input, tools, store: false, stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of second) events.push(event);
    expect(eventRuns(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events[2];
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({
      type: 'function_call',
      status: 'in_progress',
      name: 'read_file',
      arguments: '',
    });
    const argDeltas = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : []));
    expect(JSON.parse(argDeltas.join(''))).toEqual({ path: 'notes/b.txt' });
    const argsDone = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(argsDone?.type === 'response.function_call_arguments.done' && [argsDone.name, JSON.parse(argsDone.arguments)]).toEqual([
      'read_file',
      { path: 'notes/b.txt' },
    ]);
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('no response.completed');
    const turn2 = completed.response.output;
    expect(turn2).toHaveLength(1);

    // Model turn 3: the final answer.
    const call = turn2[0];
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: 'body of b' });
    const third = await ai.responses.create({ model: MODEL, input, tools, store: false });
    expect(third.output_text).toBe('read them all');
    expect(third.output.map((item) => item.type)).toEqual(['message']);
  });

  it('continues a stored response by previous_response_id: the request sends only its new items and is served the earlier prefix from the cache', async () => {
    const instructions = `You are a careful agent. Remember MARKER-7Q4Z. ${padding(2000, 'rules')}`;
    const first = await ai.responses.create({ model: MODEL, instructions, tools, input: 'REPLY first answer' });
    const firstTokens = first.usage?.input_tokens ?? 0;
    expect(firstTokens).toBeGreaterThan(2000);
    expect(first.usage?.input_tokens_details.cached_tokens).toBe(0);

    // Instructions and tools are sent again (they are not carried over); the conversation is not.
    const second = await ai.responses.create({
      model: MODEL,
      instructions,
      tools,
      previous_response_id: first.id,
      input: [{ role: 'user', content: 'RECALL MARKER-\\w+|first answer' }],
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe('RECALL MARKER-\\w+|first answer: MARKER-7Q4Z, first answer');
    const cached = second.usage?.input_tokens_details.cached_tokens ?? 0;
    expect(second.usage?.input_tokens).toBeGreaterThan(firstTokens);
    // Every full block of the first request's prompt.
    expect(cached % BLOCK).toBe(0);
    expect(cached).toBeGreaterThan(firstTokens - BLOCK);
    expect(cached).toBeLessThanOrEqual(firstTokens);

    // The same conversation sent in full (the first response's output items as the SDK returned
    // them) is the same prompt: the same tokens, and the chained request's prefix is cached.
    const resent = await ai.responses.create({
      model: MODEL,
      instructions,
      tools,
      input: [
        { role: 'user', content: 'REPLY first answer' },
        ...asInput(first.output),
        { role: 'user', content: 'RECALL MARKER-\\w+|first answer' },
      ],
    });
    expect(resent.output_text).toBe(second.output_text);
    expect(resent.usage?.input_tokens).toBe(second.usage?.input_tokens);
    expect(resent.usage?.input_tokens_details.cached_tokens).toBeGreaterThan((second.usage?.input_tokens ?? 0) - BLOCK);

    // Without instructions the continuation has none: the model does not see them, and the prompt
    // starts differently (no prefix cached).
    const bare = await ai.responses.create({ model: MODEL, tools, previous_response_id: first.id, input: 'RECALL MARKER-\\w+' });
    expect(bare.output_text).toBe('RECALL MARKER-\\w+: no match');
    expect(bare.instructions).toBeNull();
    expect(bare.usage?.input_tokens_details.cached_tokens).toBe(0);
  });

  it('branches: two requests naming the same stored response each continue it, and each branch keeps only its own turns', async () => {
    const instructions = `Branching agent. ${padding(1500, 'tree')}`;
    const root = await ai.responses.create({ model: MODEL, instructions, input: 'REPLY root-0X' });
    const [a, b] = await Promise.all(
      ['A', 'B'].map((name) =>
        ai.responses.create({ model: MODEL, instructions, previous_response_id: root.id, input: `REPLY branch-${name}-1F` }),
      ),
    );
    expect([a?.output_text, b?.output_text]).toEqual(['branch-A-1F', 'branch-B-1F']);
    expect([a?.previous_response_id, b?.previous_response_id]).toEqual([root.id, root.id]);
    expect(a?.usage?.input_tokens).toBe(b?.usage?.input_tokens);
    for (const branch of [a, b])
      expect(branch?.usage?.input_tokens_details.cached_tokens).toBeGreaterThan((root.usage?.input_tokens ?? 0) - BLOCK);

    const [onA, onB] = await Promise.all(
      [a, b].map((branch) =>
        ai.responses.create({
          model: MODEL,
          instructions,
          previous_response_id: branch?.id ?? '',
          input: 'RECALL (?:root|branch-[A-Z])-\\w\\w',
        }),
      ),
    );
    expect(onA?.output_text).toBe('RECALL (?:root|branch-[A-Z])-\\w\\w: root-0X, branch-A-1F');
    expect(onB?.output_text).toBe('RECALL (?:root|branch-[A-Z])-\\w\\w: root-0X, branch-B-1F');
  });

  it('does not keep a store:false response: naming it is a 400 previous_response_not_found, retrieving it a 404', async () => {
    const unstored = await ai.responses.create({ model: MODEL, input: 'REPLY not kept', store: false });
    expect(storeOf(unstored)).toBe(false);
    const err = await rejection(ai.responses.create({ model: MODEL, previous_response_id: unstored.id, input: 'REPLY next' }));
    expect(err).toBeInstanceOf(BadRequestError);
    const bad = err as BadRequestError;
    expect(bad.status).toBe(400);
    expect(bad.error).toEqual({
      message: `Previous response with id '${unstored.id}' not found.`,
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });

    const missing = await rejection(ai.responses.retrieve(unstored.id));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toBe(`404 Response with id '${unstored.id}' not found.`);

    // A stored one is gone once deleted.
    const kept = await ai.responses.create({ model: MODEL, input: 'REPLY kept' });
    await ai.responses.delete(kept.id);
    expect(await rejection(ai.responses.retrieve(kept.id))).toBeInstanceOf(NotFoundError);
    expect(await rejection(ai.responses.create({ model: MODEL, previous_response_id: kept.id, input: 'x' }))).toBeInstanceOf(
      BadRequestError,
    );
  });

  it('answers malformed input with a 400 naming the param, in OpenAI error JSON', async () => {
    const cases: { input: unknown; param: string; message: string; code: string | null }[] = [
      {
        input: [
          { role: 'user', content: 'CALL x' },
          { type: 'function_call', name: 'x', arguments: '{}' },
        ],
        param: 'input[1].call_id',
        message: "Missing required parameter: 'input[1].call_id'.",
        code: 'missing_required_parameter',
      },
      {
        input: [{ role: 'user', content: [{ type: 'input_txt', text: 'hi' }] }],
        param: 'input[0].content[0].type',
        message:
          "Invalid value: 'input_txt'. Supported values are: 'input_text', 'input_image', 'input_file', 'output_text', and 'refusal'.",
        code: 'invalid_value',
      },
      {
        input: [{ role: 'robot', content: 'hi' }],
        param: 'input[0].role',
        message: "Invalid value: 'robot'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
        code: 'invalid_value',
      },
      {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call_output', call_id: 'call_nowhere', output: 'x' },
        ],
        param: 'input',
        message: 'No tool call found for function call output with call_id call_nowhere.',
        code: null,
      },
      {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'function_call', call_id: 'call_open', name: 'x', arguments: '{}' },
          { role: 'user', content: 'next' },
        ],
        param: 'input',
        message: 'No tool output found for function call call_open.',
        code: null,
      },
      {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'reasoning', id: 'rs_alone', summary: [] },
          { role: 'user', content: 'next' },
        ],
        param: 'input',
        message: "Item 'rs_alone' of type 'reasoning' was provided without its required following item.",
        code: null,
      },
      {
        input: 42,
        param: 'input',
        message: "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
        code: 'invalid_type',
      },
    ];
    for (const c of cases) {
      const err = await rejection(ai.responses.create({ model: MODEL, input: c.input as ResponseInputItem[] }));
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).error).toEqual({ message: c.message, type: 'invalid_request_error', param: c.param, code: c.code });
    }
  });

  it('fails a scripted FAIL 429 as a RateLimitError with retry-after, and the SDK retry then succeeds; SLEEP delays the answer', async () => {
    const err = await rejection(ai.responses.create({ model: MODEL, input: 'FAIL 429\nREPLY never seen' }));
    expect(err).toBeInstanceOf(RateLimitError);
    const limited = err as RateLimitError;
    expect(limited.headers?.get('retry-after')).toBe('1');
    expect(limited.error).toMatchObject({ message: 'Scripted failure 1 of 1 for this request.', code: 'rate_limit_exceeded' });

    const retrying = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'x', maxRetries: 1 });
    const retried = await retrying.responses.create({ model: MODEL, input: 'FAIL 429\nREPLY after one retry' });
    expect(retried.output_text).toBe('after one retry');

    const began = Date.now();
    const slept = await ai.responses.create({ model: MODEL, input: 'SLEEP 300\nREPLY rested' });
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(slept.output_text).toBe('rested');
  });
});

describe('local server: the Responses API requests as sent (in-process, captured)', () => {
  it('a continuation carries only previous_response_id and its new items; the model sees the whole conversation', async () => {
    const server = await start({ captureRequests: true, usage: 'openai' });
    const local = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const first = await local.responses.create({
      model: MODEL,
      tools,
      input: 'CALL read_file {"path":"README.md"}\nREPLY the README says hi',
    });
    const call = first.output[0];
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const second = await local.responses.create({
      model: MODEL,
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'hi' }],
    });
    expect(second.output_text).toBe('the README says hi');

    expect(server.requests.map((r) => [r.route, r.model])).toEqual([
      ['responses', MODEL],
      ['responses', MODEL],
    ]);
    const body = JSON.parse(server.requests[1]?.body ?? '{}') as Record<string, unknown>;
    expect(body).toEqual({
      model: MODEL,
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'hi' }],
    });
    expect(server.metrics().requests.find((r) => r.route === 'responses' && r.status === 200)?.count).toBe(2);
  });

  it('answers streamed requests as text/event-stream with an `event:` line naming each event', async () => {
    const server = await start({ usage: 'openai' });
    const res = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'REPLY hi', stream: true }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = (await res.text()).split('\n\n').filter((frame) => frame !== '');
    const parsed = frames.map((frame) => {
      const [event, data] = frame.split('\n');
      return {
        event: event?.replace(/^event: /, ''),
        data: JSON.parse(data?.replace(/^data: /, '') ?? '{}') as { type: string; sequence_number: number },
      };
    });
    expect(parsed.every((p, i) => p.event === p.data.type && p.data.sequence_number === i)).toBe(true);
    expect(parsed.at(-1)?.event).toBe('response.completed');
    expect(frames.some((frame) => frame.includes('[DONE]'))).toBe(false);
  });
});
