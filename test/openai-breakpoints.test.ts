// Internal: placeOpenAIBreakpoints, takesCacheBreakpoints, CHAT_MARKS and CHILD_OPENING (src/shapes/openai-breakpoints.ts, src/shapes/openai-chat/breakpoints.ts, src/wording/child-message.ts) have no entry point; the rest comes through forkpool, the openai SDK and `forkpool serve`.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_MARKS } from '../src/shapes/openai-chat/breakpoints.js';
import { placeOpenAIBreakpoints, takesCacheBreakpoints } from '../src/shapes/openai-breakpoints.js';
import { CHILD_OPENING } from '../src/wording/child-message.js';
import { ForkEngine, parseSession, type ForkResult, type OpenAIChatSession } from '../src/index.js';
import type { ChatMessage } from '../src/shapes/openai-chat/schema.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { openAIChatSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/** Chat Completions' placement, as the request decorator calls it. */
const placeForkBreakpoints = (messages: ChatMessage[], shared: number, parentWarm: boolean) =>
  placeOpenAIBreakpoints(CHAT_MARKS, messages, shared, parentWarm);

/*
 * OpenAI's prompt cache from GPT-5.6 on is exact at breakpoints (openai SDK 6.46+: "Marks the exact
 * end of a reusable prompt prefix"; the implicit breakpoint sits near the latest user or tool
 * message). Forks end in different directives, so they share an entry only where a breakpoint they
 * all carry ends it. The simulator (`forkpool serve`, another process) speaks the rule, the openai SDK
 * sends the requests, and forkpool's forks carry the breakpoint.
 */

const NEW_MODEL = 'gpt-5.6-sol';
const OLD_MODEL = 'gpt-4.1-mini';
const KEY = 'sk-breakpoints-never-printed';

describe('which models cache at breakpoints', () => {
  it('gpt-5.6 and later do, earlier ones and other families do not', () => {
    for (const model of [
      'gpt-5.6',
      'gpt-5.6-sol',
      'gpt-5.7-mini',
      'gpt-5.10',
      'gpt-6',
      'gpt-6-luna',
      'gpt-6.1-terra',
      'openai/gpt-5.6-sol',
    ]) {
      expect([model, takesCacheBreakpoints(model)]).toEqual([model, true]);
    }
    for (const model of ['gpt-5.5', 'gpt-5', 'gpt-5-mini', 'gpt-4.1-mini', 'gpt-4o', 'o3', 'claude-sonnet-4-5', 'chatgpt-4o-latest']) {
      expect([model, takesCacheBreakpoints(model)]).toEqual([model, false]);
    }
  });
});

describe("where a fork's breakpoints go", () => {
  const child: ChatMessage = { role: 'user', content: `${CHILD_OPENING}\n\nDirective: look` };
  const history: ChatMessage[] = [
    { role: 'system', content: 'You research.' },
    { role: 'user', content: [{ type: 'text', text: 'Parent marked this.', prompt_cache_breakpoint: { mode: 'explicit' } }] },
    { role: 'assistant', content: 'Working.' },
    { role: 'user', content: 'Now find the marker.' },
  ];

  it('on the last shared message when it is input: its string becomes one text part with the marker, nothing else moves', () => {
    const placed = placeForkBreakpoints([...history, child], history.length, false);
    expect(placed[3]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Now find the marker.', prompt_cache_breakpoint: { mode: 'explicit' } }],
    });
    // Every other message is the very object the parent sent (its own breakpoint kept), the child untouched.
    for (const i of [0, 1, 2, 4]) expect(placed[i]).toBe([...history, child][i]);
    expect(history[3]?.content).toBe('Now find the marker.');
  });

  it("after the model's own message: on the child message's opening, split from its directive", () => {
    const endsOnAssistant = [...history, { role: 'assistant', content: 'Done.' } as ChatMessage];
    const placed = placeForkBreakpoints([...endsOnAssistant, child], endsOnAssistant.length, false);
    expect(placed[5]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: CHILD_OPENING, prompt_cache_breakpoint: { mode: 'explicit' } },
        { type: 'text', text: '\n\nDirective: look' },
      ],
    });
    // The assistant message carries none; the text the two parts hold is the child message's.
    expect(placed[4]).toBe(endsOnAssistant[4]);
    const parts = (placed[5] as { content: { text: string }[] }).content;
    expect(parts.map((p) => p.text).join('')).toBe(child.content);
  });

  it("parent-warm: also at the parent's newest user or tool message, where its own request's implicit breakpoint was", () => {
    const endsOnAssistant = [...history, { role: 'assistant', content: 'Done.' } as ChatMessage];
    const placed = placeForkBreakpoints([...endsOnAssistant, child], endsOnAssistant.length, true);
    expect(placed[3]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Now find the marker.', prompt_cache_breakpoint: { mode: 'explicit' } }],
    });
    expect((placed[5] as { content: unknown[] }).content).toHaveLength(2);
    // When the shared history ends on that message, one breakpoint serves both.
    const once = placeForkBreakpoints([...history, child], history.length, true);
    expect(once.filter((m, i) => m !== [...history, child][i])).toHaveLength(1);
  });
});

describe("a session's cache fields", () => {
  const base = {
    format: 'openai-chat',
    model: NEW_MODEL,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', prompt_cache_breakpoint: { mode: 'explicit' } }] }],
  };

  it('takes breakpoints on input parts and prompt_cache_options, as the SDK types them', () => {
    expect(() => parseSession({ ...base, prompt_cache_options: { mode: 'implicit', ttl: '30m' } })).not.toThrow();
  });

  it('refuses prompt_cache_retention beside prompt_cache_options, and a breakpoint mode other than explicit', () => {
    expect(() => parseSession({ ...base, prompt_cache_options: { mode: 'implicit' }, prompt_cache_retention: '24h' })).toThrow(
      /prompt_cache_retention.*not both/,
    );
    const wrongMode = {
      ...base,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', prompt_cache_breakpoint: { mode: 'implicit' } }] }],
    };
    expect(() => parseSession(wrongMode)).toThrow(/messages\[0\]\.content\[0\]\.prompt_cache_breakpoint\.mode.*"explicit"/);
  });
});

type Usage = { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } };

let server: ServeProcess;
beforeAll(async () => {
  server = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await server.stop();
});

describe('the simulator, through the openai SDK: exact at breakpoints on GPT-5.6 and later', () => {
  const shared = `You research caches. ${'The prefix is stable and long. '.repeat(300)}`;
  const marked = (text: string): OpenAI.Chat.ChatCompletionContentPartText => ({
    type: 'text',
    text,
    prompt_cache_breakpoint: { mode: 'explicit' },
  });

  async function send(model: string, system: OpenAI.Chat.ChatCompletionSystemMessageParam['content'], suffix: string): Promise<Usage> {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: `REPLY ok ${suffix}` },
      ],
    });
    return reply.usage as Usage;
  }

  it('siblings that share a breakpoint read the entry the first wrote, exactly to it; the first reports its write', async () => {
    const first = await send(NEW_MODEL, [marked(`${shared} A`)], 'one');
    const second = await send(NEW_MODEL, [marked(`${shared} A`)], 'two');
    expect(first.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(first.prompt_tokens_details?.cache_write_tokens).toBeGreaterThan(1024);
    const cached = second.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThan(1024);
    expect(cached).toBeLessThan(second.prompt_tokens);
    // Not rounded to a 128-token block: the boundary is the breakpoint's own.
    expect(cached % 128).not.toBe(0);
    // The second wrote only its own implicit entry (its last user message): beyond what it read.
    expect(second.prompt_tokens_details?.cache_write_tokens).toBe(second.prompt_tokens - cached);
  });

  it('siblings without a shared breakpoint miss, where an older model reads their common prefix in 128-token blocks', async () => {
    const first = await send(NEW_MODEL, `${shared} B`, 'one');
    const second = await send(NEW_MODEL, `${shared} B`, 'two');
    expect(first.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(second.prompt_tokens_details?.cached_tokens).toBe(0);
    await send(OLD_MODEL, `${shared} B`, 'one');
    const older = await send(OLD_MODEL, `${shared} B`, 'two');
    expect(older.prompt_tokens_details?.cached_tokens).toBeGreaterThan(1024);
    expect((older.prompt_tokens_details?.cached_tokens ?? 0) % 128).toBe(0);
    expect(older.prompt_tokens_details).not.toHaveProperty('cache_write_tokens');
  });

  it('explicit mode writes no implicit breakpoint: without markers nothing is cached, the same prompt twice included', async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: NEW_MODEL,
      prompt_cache_options: { mode: 'explicit' },
      messages: [{ role: 'user', content: `${shared} C REPLY ok` }],
    };
    await client.chat.completions.create(body);
    const again = await client.chat.completions.create(body);
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });
});

describe('forks of a GPT-5.6 session carry the breakpoint and hit', () => {
  const log: ToolLog = { calls: [] };
  const tools = testTools(log);
  let engine: ForkEngine;
  beforeAll(async () => {
    engine = await ForkEngine.create({ provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKey: KEY }, threads: 2, tools });
  });
  afterAll(async () => {
    await engine.close();
  });

  const firstCalls = (results: readonly ForkResult[]) =>
    results.map((r) => {
      expect(r.status).toBe('completed');
      return r.calls[0];
    });

  async function fanOut(session: OpenAIChatSession, n: number): Promise<ForkResult[]> {
    const tasks = Array.from({ length: n }, (_, i) => ({ id: `f${i}`, directive: `Report part ${i}.\nREPLY done` }));
    return engine.fanOut(engine.freeze(session), tasks).results();
  }

  it("history ending on the model's message: siblings read the parent's history and the child message's opening", async () => {
    const session = { ...openAIChatSession(tools, { marker: 'MARKER-B001' }), model: NEW_MODEL };
    const calls = firstCalls(await fanOut(session, 6));
    const siblings = calls.slice(1);
    for (const call of siblings) expect(call?.cachedTokens).toBeGreaterThan(1024);
    // Every sibling reads the same entry: the one the lead fork wrote at the opening's breakpoint.
    expect(new Set(siblings.map((c) => c?.cachedTokens)).size).toBe(1);
    expect(calls[0]?.cacheWriteTokens).toBeGreaterThan(1024);
  });

  it("parent-warm: every fork, the first included, reads the entry the parent's own request wrote at its newest user message", async () => {
    const session = { ...openAIChatSession(tools, { marker: 'MARKER-B003' }), model: NEW_MODEL };
    // The parent's own request: its conversation before its last reply, as its openai SDK sent it.
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { format: _format, messages, ...fields } = session;
    const parent = await client.chat.completions.create({
      ...(fields as { model: string }),
      messages: messages.slice(0, -1) as OpenAI.Chat.ChatCompletionMessageParam[],
    });
    const parentWrote = parent.usage?.prompt_tokens_details as { cache_write_tokens?: number } | undefined;
    expect(parentWrote?.cache_write_tokens).toBeGreaterThan(1024);
    const tasks = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, directive: `Report part ${i}.\nREPLY done` }));
    const calls = firstCalls(await engine.fanOut(engine.freeze(session), tasks, { parentWarm: true }).results());
    for (const call of calls) expect(call?.cachedTokens).toBeGreaterThanOrEqual(parentWrote?.cache_write_tokens ?? Number.NaN);
  });

  it('the same forks on a model without breakpoints read only whole 128-token blocks', async () => {
    const session = { ...openAIChatSession(tools, { marker: 'MARKER-B002' }), model: OLD_MODEL };
    const calls = firstCalls(await fanOut(session, 4));
    for (const call of calls.slice(1)) expect((call?.cachedTokens ?? 0) % 128).toBe(0);
  });
});
