// Internal: the Responses provider's cache diagnostics (src/model/openai-diagnostics.ts) and the local server's answer (src/local-server/responses/diagnostics.ts); ForkEngine with an OpenAI provider on a Responses session is their public face.
import OpenAI, { BadRequestError } from 'openai';
import type {
  FunctionTool,
  Response as ApiResponse,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { ForkEngine, type OpenAIResponsesSession } from '../src/index.js';
import type { LocalServer } from '../src/local-server/index.js';
import { createOpenAIResponsesProvider } from '../src/model/openai-responses.js';
import type { ModelOutcome, ResponsesItemLike } from '../src/model/types.js';
import { serversClosedAfterEach } from './fixtures/local-server/client.js';

/*
 * OpenAI's prompt cache diagnostics (developers.openai.com/api/docs/guides/prompt-caching/diagnostics):
 * a Responses request on GPT-5.6 or later that names a completed response in
 * `prompt_cache_options.comparison_response_id` is told in `prompt_cache_diagnostics` whether it
 * reused that response's prefix, and if not, why. Through the official openai SDK against an
 * in-process local server (the raw bodies kept); then through forkpool's Responses client, and a
 * fan-out's call records.
 */

const MODEL = 'gpt-5.6-sol';
const OLD_MODEL = 'gpt-4.1';
const KEY = 'sk-diagnostics-test-never-printed';
const RULES = Array.from({ length: 300 }, (_, i) => `Rule ${i}: read the file before answering and cite it.`).join('\n');
const INSTRUCTIONS = `You are the main agent.\n${RULES}`;
const tools: FunctionTool[] = [
  {
    type: 'function',
    name: 'read_file',
    description: 'Reads a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    strict: false,
  },
  {
    type: 'function',
    name: 'grep',
    description: 'Searches files.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
    strict: false,
  },
];

const start = serversClosedAfterEach();

/** The body fields openai 6.49 does not type: the comparison the request asks for. */
const comparing = (id: string, options: Record<string, unknown> = {}) =>
  ({ prompt_cache_options: { ...options, comparison_response_id: id } }) as unknown as Partial<ResponseCreateParamsNonStreaming>;
const diagnosticsOf = (response: ApiResponse): unknown =>
  (response as unknown as { prompt_cache_diagnostics?: unknown }).prompt_cache_diagnostics;
const has = (response: ApiResponse): boolean => 'prompt_cache_diagnostics' in response;

async function sdk(): Promise<{ server: LocalServer; ai: OpenAI }> {
  const server = await start({ usage: 'openai', captureRequests: true });
  return { server, ai: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 }) };
}

/**
 * A user message whose end is a breakpoint (GPT-5.6 and later read an entry only where a breakpoint
 * of the request ends it): the entry the first turn writes there is what a second turn can reuse.
 */
const marked = (text: string): ResponseInputItem =>
  ({ role: 'user', content: [{ type: 'input_text', text, prompt_cache_breakpoint: { mode: 'explicit' } }] }) as ResponseInputItem;

/** A first turn, and the input of a second that appends to it (the first's output, then a new user message). */
async function firstTurn(
  ai: OpenAI,
  over: Partial<ResponseCreateParamsNonStreaming> = {},
): Promise<{ first: ApiResponse; appended: ResponseInputItem[] }> {
  const opening: ResponseInputItem[] = [marked('Look at the diff.\nREPLY read it')];
  const first = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, tools, input: opening, ...over });
  return { first, appended: [...opening, ...(first.output as ResponseInputItem[]), { role: 'user', content: 'Go on.\nREPLY done' }] };
}

describe('the local server answers prompt_cache_options.comparison_response_id (openai SDK)', () => {
  it('no comparison named: no such field; a request that appends to the named response and reused its prefix: cache_hit', async () => {
    const { ai } = await sdk();
    const { first, appended } = await firstTurn(ai);
    expect(has(first)).toBe(false);
    const second = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, tools, input: appended, ...comparing(first.id) });
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(first.usage?.input_tokens ?? Infinity);
    expect(diagnosticsOf(second)).toEqual({ type: 'cache_hit' });
    // The verdict follows what the cache served: a setting the simulator's cache does not key on changed, and it was served.
    const rekeyed = await ai.responses.create({
      model: MODEL,
      instructions: INSTRUCTIONS,
      tools,
      input: appended,
      prompt_cache_key: 'another-run',
      ...comparing(first.id),
    });
    expect(diagnosticsOf(rekeyed)).toEqual({ type: 'cache_hit' });
    const unnamed = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, tools, input: appended });
    expect(has(unnamed)).toBe(false);
  });

  it.each([
    ['tools_changed: tools reordered', { tools: [tools[1] as FunctionTool, tools[0] as FunctionTool] }, 'tools_changed'],
    ['model_changed', { model: 'gpt-5.6-terra' }, 'model_changed'],
  ] as const)('%s: a cache_miss naming it, the named prompt missed whole', async (_what, over, reason) => {
    const { ai } = await sdk();
    const { first, appended } = await firstTurn(ai);
    const second = await ai.responses.create({
      model: MODEL,
      instructions: INSTRUCTIONS,
      tools,
      input: appended,
      ...over,
      ...comparing(first.id),
    } as ResponseCreateParamsNonStreaming);
    const named = first.usage?.input_tokens ?? -1;
    expect(second.usage?.input_tokens_details.cached_tokens).toBe(0);
    expect(diagnosticsOf(second)).toEqual({ type: 'cache_miss', reason, cache_missed_tokens: named, comparison_reusable_tokens: named });
  });

  it('input_changed: an earlier message edited; the instructions it kept were not reused either (no breakpoint ends them)', async () => {
    const { ai } = await sdk();
    const { first, appended } = await firstTurn(ai);
    const edited = [marked('Look at the other diff.\nREPLY read it'), ...appended.slice(1)];
    const second = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, tools, input: edited, ...comparing(first.id) });
    const miss = diagnosticsOf(second) as { type: string; reason: string; cache_missed_tokens: number; comparison_reusable_tokens: number };
    expect(miss).toMatchObject({ type: 'cache_miss', reason: 'input_changed' });
    // What it shares with the named prompt: the tools and the instructions, over the cache's minimum, short of the whole.
    expect(miss.comparison_reusable_tokens).toBeGreaterThan(1024);
    expect(miss.comparison_reusable_tokens).toBeLessThan(first.usage?.input_tokens ?? 0);
    expect(miss.cache_missed_tokens).toBe(miss.comparison_reusable_tokens);
  });

  it('a response it does not know, or one of an earlier model: answered all the same, with comparison_response_not_found / unavailable', async () => {
    const { ai } = await sdk();
    const unknown = await ai.responses.create({ model: MODEL, input: 'REPLY still answered', ...comparing('resp_never_issued') });
    expect(unknown.status).toBe('completed');
    expect(unknown.output_text).toBe('still answered');
    expect(diagnosticsOf(unknown)).toEqual({ type: 'comparison_response_not_found' });
    // A response not stored (store: false) has completed all the same: it can be compared with.
    const unstored = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, input: 'REPLY one', store: false });
    const after = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, input: 'REPLY two', ...comparing(unstored.id) });
    expect(diagnosticsOf(after)).toMatchObject({ type: expect.stringMatching(/^cache_(hit|miss)$/) });
    // Diagnostics are for GPT-5.6 and later.
    const old = await ai.responses.create({ model: OLD_MODEL, input: 'REPLY old', ...comparing(unknown.id) });
    expect(diagnosticsOf(old)).toEqual({ type: 'unavailable' });
  });

  it('streamed: on response.completed’s response only; a field that is not a string is refused, naming it', async () => {
    const { ai } = await sdk();
    const { first, appended } = await firstTurn(ai);
    const stream = await ai.responses.create({
      model: MODEL,
      instructions: INSTRUCTIONS,
      tools,
      input: appended,
      stream: true,
      ...comparing(first.id),
    } as unknown as ResponseCreateParamsStreaming);
    const withField: string[] = [];
    let completed: ApiResponse | undefined;
    for await (const event of stream) {
      const response = (event as { response?: ApiResponse }).response;
      if (response && has(response)) withField.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(withField).toEqual(['response.completed']);
    expect(completed && diagnosticsOf(completed)).toEqual({ type: 'cache_hit' });

    const refused = await ai.responses
      .create({
        model: MODEL,
        input: 'REPLY x',
        prompt_cache_options: { comparison_response_id: 7 },
      } as unknown as ResponseCreateParamsNonStreaming)
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).error).toMatchObject({
      param: 'prompt_cache_options.comparison_response_id',
      code: 'invalid_type',
    });
  });
});

describe("forkpool's Responses client names a response for comparison", () => {
  const ok = (outcome: ModelOutcome): Extract<ModelOutcome, { ok: true }> => {
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome;
  };
  const user = (text: string): ResponsesItemLike => ({ role: 'user', content: text });
  const options = (previousResponseId?: string | null) => ({
    signal: new AbortController().signal,
    ...(previousResponseId !== undefined ? { previousResponseId } : {}),
  });
  type SentBody = { model: string; prompt_cache_options?: Record<string, unknown> };

  it('sends comparison_response_id for a named response (GPT-5.6 and later only), untyped, and returns the response id and the verdict', async () => {
    const server = await start({ usage: 'openai', captureRequests: true });
    const provider = createOpenAIResponsesProvider({ kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: KEY });
    const sent = (): SentBody => JSON.parse(server.requests.at(-1)?.body ?? '{}') as SentBody;
    const fields = { model: MODEL, instructions: INSTRUCTIONS, tools: tools as unknown as Record<string, unknown>[] };
    const opening = [
      {
        role: 'user',
        content: [{ type: 'input_text', text: 'REPLY first', prompt_cache_breakpoint: { mode: 'explicit' } }],
      } as ResponsesItemLike,
    ];
    const generate = (body: Record<string, unknown>, named?: string | null) =>
      provider
        .generate(
          { format: 'openai-responses', body: { ...fields, input: opening, ...body } as { model: string; input: ResponsesItemLike[] } },
          options(named),
        )
        .then(ok);

    // The first call names none (null): nothing is sent, nothing is diagnosed; its id is returned.
    const first = await generate({}, null);
    expect(first.responseId).toMatch(/^resp_/);
    expect(first.diagnosedAgainst).toBeUndefined();
    expect(sent().prompt_cache_options).toBeUndefined();

    const appended = [...opening, ...((first.message as { output: ResponsesItemLike[] }).output ?? []), user('REPLY second')];
    const hit = await generate({ input: appended }, first.responseId);
    expect(sent().prompt_cache_options).toEqual({ comparison_response_id: first.responseId });
    expect(hit.diagnosedAgainst).toBe(first.responseId);
    expect(hit.cacheMiss).toBeUndefined();
    expect(hit.usage.cachedTokens).toBeGreaterThan(1024);

    // The session's own options keep their place and fields; a comparison of its own is the fork's to replace.
    await generate(
      { input: appended, prompt_cache_options: { mode: 'implicit', comparison_response_id: 'resp_parent' }, store: false },
      first.responseId,
    );
    expect(Object.keys(sent())).toEqual(['model', 'instructions', 'tools', 'input', 'prompt_cache_options', 'store', 'stream']);
    expect(sent().prompt_cache_options).toEqual({ mode: 'implicit', comparison_response_id: first.responseId });

    const changed = await generate({ input: appended, tools: [...fields.tools].reverse() }, first.responseId);
    expect(changed.diagnosedAgainst).toBe(first.responseId);
    expect(changed.cacheMiss).toEqual({ reason: 'tools_changed', missedTokens: first.usage.promptTokens });

    // A response the server does not know: the call is answered, and says so.
    const lost = await generate({ input: appended }, 'resp_never_issued');
    expect(lost.cacheMiss).toEqual({ reason: 'comparison_response_not_found' });

    // An earlier model: no prompt_cache_options at all, nothing diagnosed; the id still comes back.
    const old = await generate({ model: OLD_MODEL, input: appended }, first.responseId);
    expect(sent().model).toBe(OLD_MODEL);
    expect(sent().prompt_cache_options).toBeUndefined();
    expect(old.diagnosedAgainst).toBeUndefined();
    expect(old.responseId).toMatch(/^resp_/);
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
  });
});

describe("a fan-out's forks are compared with their window's first response, or the parent's stored one", () => {
  const FINISHED = [
    { role: 'user', content: 'Please remember MARKER-D1A6 and look the readme up.' },
    { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"README.md"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'README: forkpool forks agents.' },
    { role: 'assistant', content: 'Noted MARKER-D1A6.' },
  ] as Exclude<OpenAIResponsesSession['input'], string>;
  const session = (model: string, input: OpenAIResponsesSession['input'] = FINISHED): OpenAIResponsesSession =>
    ({ format: 'openai-responses', model, instructions: INSTRUCTIONS, input, tools }) as unknown as OpenAIResponsesSession;
  const tasks = [1, 2, 3].map((n) => ({ id: `f${n}`, directive: `Report part ${n}.\nREPLY done` }));

  async function fanOut(
    server: LocalServer,
    model: string,
    over: { storedResponse?: string } = {},
    input: OpenAIResponsesSession['input'] = FINISHED,
  ) {
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: KEY },
      threads: 1,
      concurrency: 1,
      ...(over.storedResponse ? { cache: 'explicit' as const } : {}),
    });
    try {
      return await engine.fanOut(engine.freeze(session(model, input)), tasks, over).results();
    } finally {
      await engine.close();
    }
  }

  it('GPT-5.6: the first fork names none; each later fork’s first call is compared with the first fork’s completed response, and was served', async () => {
    const server = await start({ usage: 'openai', captureRequests: true });
    const [lead, ...rest] = await fanOut(server, MODEL);
    const leadId = lead?.calls[0]?.responseId;
    expect(leadId).toMatch(/^resp_/);
    expect(lead?.calls[0]?.diagnosedAgainst).toBeUndefined();
    for (const result of rest) {
      expect(result.status).toBe('completed');
      expect(result.calls[0]?.diagnosedAgainst).toBe(leadId);
      expect(result.calls[0]?.cacheMiss).toBeUndefined();
      expect(result.cacheMiss).toBeUndefined();
    }
    const compared = server.requests.map((r) => (JSON.parse(r.body) as SentOptions).prompt_cache_options?.comparison_response_id);
    expect(compared).toEqual([undefined, leadId, leadId]);
  });

  it('with the parent’s stored response named, every fork’s first call is compared with it', async () => {
    const server = await start({ usage: 'openai', captureRequests: true });
    const ai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
    // The parent marks its last input item, as an agent on GPT-5.6 does: its stored conversation carries the breakpoint.
    const asked = [
      ...FINISHED.slice(0, 2),
      {
        ...FINISHED[2],
        output: [{ type: 'input_text', text: 'README: forkpool forks agents.', prompt_cache_breakpoint: { mode: 'explicit' } }],
      },
    ];
    const parent = await ai.responses.create({ model: MODEL, instructions: INSTRUCTIONS, tools, input: asked as ResponseInputItem[] });
    const results = await fanOut(server, MODEL, { storedResponse: parent.id }, [
      ...asked,
      ...parent.output,
    ] as OpenAIResponsesSession['input']);
    for (const result of results) {
      expect(result.sent).toEqual({ storedResponse: parent.id, items: 1 });
      expect(result.calls[0]?.diagnosedAgainst).toBe(parent.id);
      // It appends to the parent's request and was served what that request wrote: a hit.
      expect(result.calls[0]?.cachedTokens).toBeGreaterThanOrEqual(parent.usage?.input_tokens ?? Infinity);
      expect(result.calls[0]?.cacheMiss).toBeUndefined();
    }
  });

  it('an earlier model: no request carries prompt_cache_options, and nothing is diagnosed', async () => {
    const server = await start({ usage: 'openai', captureRequests: true });
    const results = await fanOut(server, 'gpt-4.1-mini');
    for (const result of results) {
      expect(result.status).toBe('completed');
      expect(result.calls[0]?.diagnosedAgainst).toBeUndefined();
    }
    expect(server.requests).toHaveLength(3);
    for (const { body } of server.requests) expect(body).not.toContain('prompt_cache_options');
  });
});

type SentOptions = { prompt_cache_options?: { comparison_response_id?: string } };
