// Internal: the built-in Anthropic provider (src/model/anthropic.ts): ForkEngine's `provider: { kind: 'anthropic' }` is its public face, and a fork's CallRecords show what it returns.
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { createAnthropicProvider } from '../src/model/anthropic.js';
import type { AnthropicMessageLike, ModelOutcome } from '../src/model/types.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { anthropicSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Anthropic's cache diagnostics (platform.claude.com/docs/en/build-with-claude/cache-diagnostics):
 * a request that carries `diagnostics: { previous_message_id }` is told where its prompt left the
 * named request's (model, tools, system, messages), `null` when it only appended to it. Through
 * @anthropic-ai/sdk against `forkpool serve` in another process, streaming and not; then through
 * forkpool's own client and a fork's per-call records.
 */

const MODEL = 'claude-sonnet-4-5';
const KEY = 'sk-ant-diagnostics-never-printed';
const SYSTEM = `You review code. ${'The review rules are long and stable. '.repeat(40)}`;
const TOOLS: Tool[] = [
  { name: 'grep', description: 'Search the tree.', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } },
  { name: 'read', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
];
/** Long enough (with system and tools) to be cached at a breakpoint: over claude-sonnet-4-5's 1,024-token minimum. */
const HISTORY = `Here is the diff to review. ${'A line of the diff that stays the same. '.repeat(150)}`;

let server: ServeProcess;
let ai: Anthropic;
beforeAll(async () => {
  server = await startServe();
  ai = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await server.stop();
});

/** What a response said, and (streaming) what its events carried. */
interface Answer {
  message: Message;
  /** Streaming: message_start's message as it came (the event the docs put `diagnostics` on). */
  started?: Record<string, unknown>;
  /** Streaming: whether any message_delta carried a `diagnostics` field. */
  deltaHadDiagnostics?: boolean;
}

type Mode = 'non-streaming' | 'streaming';

async function send(mode: Mode, body: MessageCreateParamsNonStreaming): Promise<Answer> {
  if (mode === 'non-streaming') return { message: await ai.messages.create(body) };
  const stream = ai.messages.stream(body);
  let started: Record<string, unknown> | undefined;
  let deltaHadDiagnostics = false;
  for await (const event of stream) {
    if (event.type === 'message_start') started = event.message as unknown as Record<string, unknown>;
    if (event.type === 'message_delta') deltaHadDiagnostics ||= 'diagnostics' in event || 'diagnostics' in event.delta;
  }
  return { message: await stream.finalMessage(), ...(started ? { started } : {}), deltaHadDiagnostics };
}

/** The `diagnostics` a response carried, checking that a stream carried it on message_start only. */
function diagnosticsOf(answer: Answer, mode: Mode): unknown {
  const { message } = answer;
  expect('diagnostics' in message).toBe(true);
  if (mode === 'streaming') {
    expect(answer.started).toBeDefined();
    expect('diagnostics' in (answer.started ?? {})).toBe(true);
    expect(answer.started?.diagnostics).toEqual(message.diagnostics);
    expect(answer.deltaHadDiagnostics).toBe(false);
  }
  return message.diagnostics;
}

/** "total_input_tokens = cache_read_input_tokens + cache_creation_input_tokens + input_tokens". */
const promptTokens = (message: Message): number =>
  message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0);

function body(
  messages: MessageParam[],
  previous: string | null,
  over: Partial<MessageCreateParamsNonStreaming> = {},
): MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 64, system: SYSTEM, tools: TOOLS, messages, diagnostics: { previous_message_id: previous }, ...over };
}

/** A first turn that opts in (`previous_message_id: null`), and the messages of a second turn that appends to it. */
async function firstTurn(
  mode: Mode,
  tag: string,
  over: Partial<MessageCreateParamsNonStreaming> = {},
): Promise<{ first: Message; appended: MessageParam[] }> {
  const opening: MessageParam[] = [{ role: 'user', content: `${tag}: look at the diff.\nREPLY read it` }];
  const answer = await send(mode, body(opening, null, over));
  // "previous_message_id was null (first turn, nothing to compare)": null.
  expect(diagnosticsOf(answer, mode)).toBeNull();
  const first = answer.message;
  return { first, appended: [...opening, { role: 'assistant', content: first.content }, { role: 'user', content: 'Go on.\nREPLY done' }] };
}

describe.each<Mode>(['non-streaming', 'streaming'])('cache diagnostics through the SDK (%s)', (mode) => {
  it('a request without `diagnostics` gets no such field; one that only appends to the named request gets `diagnostics: null`', async () => {
    const plain = await send(mode, { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'REPLY plain' }] });
    expect('diagnostics' in plain.message).toBe(false);
    if (mode === 'streaming') expect('diagnostics' in (plain.started ?? {})).toBe(false);

    const { first, appended } = await firstTurn(mode, 'hit');
    const second = await send(mode, body(appended, first.id));
    expect(second.message.id).not.toBe(first.id);
    expect(diagnosticsOf(second, mode)).toBeNull();
    // And a third that names the second: chained the same way.
    const third = await send(
      mode,
      body(
        [...appended, { role: 'assistant', content: second.message.content }, { role: 'user', content: 'REPLY again' }],
        second.message.id,
      ),
    );
    expect(diagnosticsOf(third, mode)).toBeNull();
  });

  it('model_changed: the whole named prompt is missed', async () => {
    const { first, appended } = await firstTurn(mode, 'model');
    const second = await send(mode, body(appended, first.id, { model: 'claude-opus-4-8' }));
    expect(diagnosticsOf(second, mode)).toEqual({
      cache_miss_reason: { type: 'model_changed', cache_missed_input_tokens: promptTokens(first) },
    });
  });

  it('tools_changed: tools reordered, the whole named prompt is missed', async () => {
    const { first, appended } = await firstTurn(mode, 'tools');
    const second = await send(mode, body(appended, first.id, { tools: [TOOLS[1] as Tool, TOOLS[0] as Tool] }));
    expect(diagnosticsOf(second, mode)).toEqual({
      cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: promptTokens(first) },
    });
  });

  it('system_changed: what follows the tools is missed (the tools were the same)', async () => {
    const { first, appended } = await firstTurn(mode, 'system');
    const second = await send(mode, body(appended, first.id, { system: `${SYSTEM} Today is 2026-10-01.` }));
    const reason = (diagnosticsOf(second, mode) as { cache_miss_reason: { type: string; cache_missed_input_tokens: number } })
      .cache_miss_reason;
    expect(reason.type).toBe('system_changed');
    // The tools' tokens: a prompt with them less one without (each count is rounded up: within 1).
    const probe = [{ role: 'user' as const, content: 'x' }];
    const withTools = (await ai.messages.countTokens({ model: MODEL, tools: TOOLS, messages: probe })).input_tokens;
    const without = (await ai.messages.countTokens({ model: MODEL, messages: probe })).input_tokens;
    expect(Math.abs(reason.cache_missed_input_tokens - (promptTokens(first) - (withTools - without)))).toBeLessThanOrEqual(1);
    expect(reason.cache_missed_input_tokens).toBeLessThan(promptTokens(first));
  });

  it('messages_changed: an earlier message altered, or removed; the named prompt after the last shared message is missed', async () => {
    const history: MessageParam = { role: 'user', content: [{ type: 'text', text: HISTORY, cache_control: { type: 'ephemeral' } }] };
    const opening: MessageParam[] = [
      history,
      { role: 'assistant', content: 'I have read it.' },
      { role: 'user', content: 'Which line is wrong?\nREPLY none' },
    ];
    const first = (await send(mode, body(opening, null))).message;
    // Tokens up to the end of the message the two share (the history).
    const shared = (await ai.messages.countTokens({ model: MODEL, system: SYSTEM, tools: TOOLS, messages: [history] })).input_tokens;

    // The assistant's reply re-serialized differently, after the breakpoint: the diagnosis is about structure, not whether the cache hit.
    const edited = await send(mode, body([history, { role: 'assistant', content: 'I have read it!' }, ...opening.slice(2)], first.id));
    expect(diagnosticsOf(edited, mode)).toEqual({
      cache_miss_reason: { type: 'messages_changed', cache_missed_input_tokens: promptTokens(first) - shared },
    });
    // "A change occurred late in the prompt but an earlier cache_control breakpoint still hit."
    expect(edited.message.usage.cache_read_input_tokens).toBe(shared);

    // History truncated: removed rather than appended to.
    const truncated = await send(mode, body([history], first.id));
    expect(diagnosticsOf(truncated, mode)).toEqual({
      cache_miss_reason: { type: 'messages_changed', cache_missed_input_tokens: promptTokens(first) - shared },
    });
  });

  it('unavailable: model, system and tools the same, another prompt-affecting parameter (tool_choice) not', async () => {
    const { first, appended } = await firstTurn(mode, 'settings');
    const second = await send(mode, body(appended, first.id, { tool_choice: { type: 'auto' } }));
    expect(diagnosticsOf(second, mode)).toEqual({ cache_miss_reason: { type: 'unavailable' } });
  });

  it('previous_message_not_found: an id never issued, or one whose request did not opt in', async () => {
    const unknown = await send(mode, body([{ role: 'user', content: 'REPLY x' }], 'msg_never_issued'));
    expect(diagnosticsOf(unknown, mode)).toEqual({ cache_miss_reason: { type: 'previous_message_not_found' } });

    const opening: MessageParam[] = [{ role: 'user', content: 'REPLY not opted in' }];
    const { diagnostics: _none, ...without } = body(opening, null);
    const unrecorded = (await send(mode, without)).message;
    const second = await send(
      mode,
      body([...opening, { role: 'assistant', content: unrecorded.content }, { role: 'user', content: 'REPLY y' }], unrecorded.id),
    );
    expect(diagnosticsOf(second, mode)).toEqual({ cache_miss_reason: { type: 'previous_message_not_found' } });
  });
});

describe('the `diagnostics` field is checked like the rest of the body', () => {
  async function refusal(diagnostics: unknown): Promise<{ status: number | undefined; error: unknown }> {
    try {
      await ai.messages.create({
        ...body([{ role: 'user', content: 'REPLY x' }], null),
        diagnostics,
      } as unknown as MessageCreateParamsNonStreaming);
    } catch (err) {
      if (err instanceof Anthropic.APIError) return { status: err.status, error: err.error };
      throw err;
    }
    throw new Error('the request was accepted');
  }

  it.each([
    ['not an object', 'yes', 'diagnostics: Input should be a valid dictionary'],
    ['an id that is not a string', { previous_message_id: 7 }, 'diagnostics.previous_message_id: Input should be a valid string'],
    ['a field it does not have', { previous_message_id: null, compare: 'all' }, 'diagnostics.compare: Extra inputs are not permitted'],
  ])('%s: 400 invalid_request_error naming the field', async (_what, diagnostics, message) => {
    const { status, error } = await refusal(diagnostics);
    expect(status).toBe(400);
    expect(error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
  });
});

describe("forkpool's Anthropic client and a fork's call records", () => {
  const fields = { model: MODEL, max_tokens: 64, system: SYSTEM, tools: TOOLS as unknown as readonly Record<string, unknown>[] };
  const user = (text: string): AnthropicMessageLike => ({ role: 'user', content: text });
  const ok = (outcome: ModelOutcome): Extract<ModelOutcome, { ok: true }> => {
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome;
  };

  it('sends `diagnostics` when a call names a previous response (or null), and returns the response id and the verdict', async () => {
    const provider = createAnthropicProvider({ kind: 'anthropic', apiKey: KEY, baseUrl: server.url });
    const options = (previousResponseId?: string | null) => ({
      signal: new AbortController().signal,
      ...(previousResponseId !== undefined ? { previousResponseId } : {}),
    });
    const opening = [user('REPLY first')];
    const first = ok(await provider.generate({ format: 'anthropic-messages', body: { ...fields, messages: opening } }, options(null)));
    expect(first.responseId).toMatch(/^msg_/);
    expect(first.diagnosedAgainst).toBeUndefined();

    const appended = [...opening, first.message as AnthropicMessageLike, user('REPLY second')];
    const hit = ok(
      await provider.generate({ format: 'anthropic-messages', body: { ...fields, messages: appended } }, options(first.responseId)),
    );
    expect(hit.diagnosedAgainst).toBe(first.responseId);
    expect(hit.cacheMiss).toBeUndefined();

    const changed = ok(
      await provider.generate(
        { format: 'anthropic-messages', body: { ...fields, system: `${SYSTEM} Now.`, messages: appended } },
        options(first.responseId),
      ),
    );
    expect(changed.diagnosedAgainst).toBe(first.responseId);
    expect(changed.cacheMiss?.reason).toBe('system_changed');
    expect(changed.cacheMiss?.missedTokens).toBeGreaterThan(0);

    const lost = ok(
      await provider.generate({ format: 'anthropic-messages', body: { ...fields, messages: opening } }, options('msg_never_issued')),
    );
    expect(lost.cacheMiss).toEqual({ reason: 'previous_message_not_found' });

    // Not named: no `diagnostics` is sent, so nothing is diagnosed (and the next call naming it finds nothing).
    const silent = ok(await provider.generate({ format: 'anthropic-messages', body: { ...fields, messages: opening } }, options()));
    expect(silent.responseId).toMatch(/^msg_/);
    expect(silent.diagnosedAgainst).toBeUndefined();
    const after = ok(
      await provider.generate({ format: 'anthropic-messages', body: { ...fields, messages: appended } }, options(silent.responseId)),
    );
    expect(after.cacheMiss).toEqual({ reason: 'previous_message_not_found' });
  });

  it('each call of a fork after its first names the one before it: the records carry the response ids and the verdicts', async () => {
    const log: ToolLog = { calls: [] };
    const tools = testTools(log);
    const engine = await ForkEngine.create({ provider: { kind: 'anthropic', baseUrl: server.url, apiKey: KEY }, threads: 1, tools });
    try {
      const directive = 'CALL lookup {"key":"abc"}\nCALL@2 lookup {"key":"def"}\nREPLY looked them up';
      const [result] = await engine.fanOut(engine.freeze(anthropicSession(tools)), [{ id: 'chain', directive }]).results();
      expect(result?.status).toBe('completed');
      const calls = result?.calls ?? [];
      expect(calls).toHaveLength(3);
      const ids = calls.map((call) => call.responseId);
      for (const id of ids) expect(id).toMatch(/^msg_/);
      expect(new Set(ids).size).toBe(3);
      // The first named none (it opted in); each later one was compared with the one before it and only appended to it.
      expect(calls[0]?.diagnosedAgainst).toBeUndefined();
      expect(calls[1]?.diagnosedAgainst).toBe(ids[0]);
      expect(calls[2]?.diagnosedAgainst).toBe(ids[1]);
      for (const call of calls) expect(call.cacheMiss).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it("a fan-out's later forks name their window's first response: each first call is compared with the first fork's", async () => {
    const tools = testTools({ calls: [] });
    const engine = await ForkEngine.create({ provider: { kind: 'anthropic', baseUrl: server.url, apiKey: KEY }, threads: 2, tools });
    try {
      const tasks = ['one', 'two', 'three'].map((id) => ({ id, directive: `Part ${id}.\nREPLY done` }));
      const results = await engine.fanOut(engine.freeze(anthropicSession(tools, { marker: 'MARKER-DIAG' })), tasks).results();
      const [lead, ...rest] = results;
      const leadId = lead?.calls[0]?.responseId;
      expect(leadId).toMatch(/^msg_/);
      // The warm-up sends the first fork alone; the others go once its response has begun, and name it.
      expect(lead?.calls[0]?.diagnosedAgainst).toBeUndefined();
      for (const result of rest) {
        const first = result.calls[0];
        expect(first?.diagnosedAgainst).toBe(leadId);
        // Each ends in a directive of its own: the structure differs after the shared history, as the API would say, yet it was served.
        expect(first?.cacheMiss?.reason).toBe('messages_changed');
        expect(first?.cachedTokens).toBeGreaterThan(1024);
        expect(result.cacheMiss).toBeUndefined();
      }
    } finally {
      await engine.close();
    }
  });
});
