// Internal: createUnitCache and renderChat (src/local-server/openai/) have no entry point; the rest is `forkpool serve --usage deepseek` in another process, through the openai SDK.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_CACHE_PRESETS } from '../src/local-server/index.js';
import { createPrefixUnits } from '../src/local-server/openai/prefix-units.js';
import { renderChat } from '../src/local-server/openai/render.js';
import { createUnitCache } from '../src/local-server/openai/unit-cache.js';
import type { ChatMessage, ChatRequest } from '../src/local-server/openai/wire.js';
import { DEEPSEEK_UNIT_GRANULARITY_TOKENS, DEEPSEEK_UNIT_INTERVAL_TOKENS } from '../src/model/deepseek-units.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { padding } from './fixtures/local-server/client.js';

/*
 * DeepSeek's disk cache is made of cache prefix units (api-docs.deepseek.com/guides/kv_cache): "A
 * subsequent request can only hit the cache if it fully matches a cache prefix unit"; units sit at
 * the end of the user input and of the model output, at common prefixes detected across requests,
 * and at fixed token intervals. So forks sharing a prefix P and ending in different directives get
 * P only from the third fork on: fork 1 leaves units at its own end (P + its directive) and at every
 * 4,096 tokens; fork 2 hits the largest of those and, sharing P with fork 1, makes P a unit; fork 3
 * hits P.
 */

const MODEL = 'deepseek-chat';
/** DeepSeek's usage fields, which the openai SDK's types do not have. */
type DeepSeekUsage = { prompt_tokens: number; prompt_cache_hit_tokens: number; prompt_cache_miss_tokens: number };
const G = DEEPSEEK_UNIT_GRANULARITY_TOKENS;
const INTERVAL = DEEPSEEK_UNIT_INTERVAL_TOKENS;
/** Past the preset's 2 s build delay. */
const BUILT_MS = 2_500;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The simulator's tokenizer: each message is its JSON on one line, 4 characters a token (src/local-server/openai/render.ts). */
const rendered = (messages: readonly object[]): string => messages.map((m) => `${JSON.stringify(m)}\n`).join('');
const tokensOf = (messages: readonly object[]): number => Math.ceil(rendered(messages).length / 4);

/** Tokens of the longest run of whole 64-token blocks two prompts share. */
function sharedBlocks(a: readonly object[], b: readonly object[]): number {
  const [x, y] = [rendered(a), rendered(b)];
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return Math.floor(i / (G * 4)) * G;
}

/** A fork: the shared system prompt of ~`tokens` tokens (seeded: each test has its own), then its own directive. */
function fork(seed: string, tokens: number, i: number): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: `You are a careful agent. ${padding(tokens, seed)}` },
    { role: 'user', content: `Fork ${i}.\nREPLY fork ${i} done` },
  ];
}

describe('cache prefix units, through the openai SDK against forkpool serve --usage deepseek', () => {
  let server: ServeProcess;
  let ai: OpenAI;

  beforeAll(async () => {
    server = await startServe(['--usage', 'deepseek']);
    ai = new OpenAI({ apiKey: 'sk-units-not-real', baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function hit(
    messages: ChatCompletionMessageParam[],
  ): Promise<{ hit: number; prompt: number; reply: OpenAI.Chat.Completions.ChatCompletionMessage }> {
    const res = await ai.chat.completions.create({ model: MODEL, messages });
    const usage = res.usage as unknown as DeepSeekUsage;
    expect(usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
    return {
      hit: usage.prompt_cache_hit_tokens,
      prompt: usage.prompt_tokens,
      reply: res.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage,
    };
  }

  it('two staggered warm-up forks: fork 2 gets the 4,096 interval unit, fork 3 the shared prefix (rounded down to 64)', async () => {
    const forks = [1, 2, 3].map((i) => fork('staggered', 6000, i));
    const p = sharedBlocks(forks[0] as object[], forks[1] as object[]);
    // The fixture: the shared prefix lies between the first and the second interval, short of each fork's end.
    expect(p).toBeGreaterThan(INTERVAL);
    expect(tokensOf(forks[0] as object[])).toBeLessThan(2 * INTERVAL);

    const first = await hit(forks[0] as ChatCompletionMessageParam[]);
    expect(first.prompt).toBe(tokensOf(forks[0] as object[]));
    expect(first.hit).toBe(0);
    await sleep(BUILT_MS);
    // Fork 1's end unit holds its own directive: fork 2 matches only the interval unit.
    expect((await hit(forks[1] as ChatCompletionMessageParam[])).hit).toBe(INTERVAL);
    await sleep(BUILT_MS);
    expect((await hit(forks[2] as ChatCompletionMessageParam[])).hit).toBe(p);
  });

  it('siblings released together after fork 1 get only the interval unit; the next one gets the shared prefix they made', async () => {
    const forks = [1, 2, 3, 4, 5].map((i) => fork('together', 6000, i));
    const p = sharedBlocks(forks[0] as object[], forks[1] as object[]);
    expect(p).toBeGreaterThan(INTERVAL);

    expect((await hit(forks[0] as ChatCompletionMessageParam[])).hit).toBe(0);
    await sleep(BUILT_MS);
    const siblings = await Promise.all(forks.slice(1, 4).map((messages) => hit(messages)));
    expect(siblings.map((s) => s.hit)).toEqual([INTERVAL, INTERVAL, INTERVAL]);
    await sleep(BUILT_MS);
    expect((await hit(forks[4] as ChatCompletionMessageParam[])).hit).toBe(p);
  });

  it('a prompt under the interval, sent again exactly, hits the whole prompt (and a sibling of it nothing)', async () => {
    const messages = fork('repeat', 3000, 1);
    const first = await hit(messages);
    expect(first.hit).toBe(0);
    await sleep(BUILT_MS);
    const again = await hit(messages);
    expect(again.hit).toBe(first.prompt);
    expect(again.hit % G).not.toBe(0); // the prompt's own end, not a block boundary
    expect((await hit(fork('repeat', 3000, 2))).hit).toBe(0);
  });

  it("a conversation's second call hits the unit at the end of the first call's output (tool call and result)", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: `You read files. ${padding(3000, 'conversation')}` },
      { role: 'user', content: 'CALL read_file {"path":"notes.txt"}' },
    ];
    const first = await hit(messages);
    const calls = first.reply.tool_calls ?? [];
    expect(calls.map((c) => (c.type === 'function' ? c.function.name : c.type))).toEqual(['read_file']);
    await sleep(BUILT_MS);
    // Sent back as forkpool's engine does: content null beside the calls.
    const assistant: ChatCompletionMessageParam = { role: 'assistant', content: null, tool_calls: calls };
    const answered = [
      ...messages,
      assistant,
      { role: 'tool', tool_call_id: calls[0]?.id as string, content: 'the notes' } as ChatCompletionMessageParam,
    ];
    const second = await hit(answered);
    expect(second.hit).toBe(tokensOf([...messages, assistant]));
    expect(second.hit).toBeGreaterThan(first.prompt);
  });

  it('a text reply sent back as it was rendered is hit; sent back with other JSON, only the end of the user input is', async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: `You answer briefly. ${padding(3000, 'text-reply')}` },
      { role: 'user', content: 'REPLY the first answer' },
    ];
    const first = await hit(messages);
    expect(first.reply.content).toBe('the first answer');
    await sleep(BUILT_MS);
    const assistant: ChatCompletionMessageParam = { role: 'assistant', content: 'the first answer' };
    const next: ChatCompletionMessageParam = { role: 'user', content: 'REPLY the second answer' };
    expect((await hit([...messages, assistant, next])).hit).toBe(tokensOf([...messages, assistant]));
    // The SDK's message verbatim carries `refusal: null`: other text, so only the prompt's end unit matches.
    const verbatim = { ...first.reply } as unknown as ChatCompletionMessageParam;
    expect((await hit([...messages, verbatim, next])).hit).toBe(first.prompt);
  });
});

describe('cache prefix units, in process with a clock of our own', () => {
  const config = CHAT_CACHE_PRESETS.deepseek.implicit;
  const rules = CHAT_CACHE_PRESETS.deepseek.units as { intervalTokens: number };

  function request(messages: ChatMessage[]): ChatRequest {
    return { model: MODEL, messages, tools: undefined, stream: false, includeUsage: false, cacheMode: 'implicit' };
  }
  const prompt = (seed: string, tokens: number, i: number): ChatMessage[] => fork(seed, tokens, i) as ChatMessage[];
  const render = (messages: ChatMessage[]) => renderChat(request(messages), config.blockTokens);

  /** One request: what it was served, then its units created (prefill done) at the same instant. */
  function send(cache: ReturnType<typeof createUnitCache>, messages: ChatMessage[]): number {
    const rendering = render(messages);
    const served = cache.lookup(rendering);
    cache.prefillDone(rendering);
    return served;
  }

  it('a unit is usable only once built, and expires after the TTL unless it serves', () => {
    let t = 0;
    const cache = createUnitCache(config, rules, () => t);
    const messages = prompt('clock', 500, 1);
    expect(send(cache, messages)).toBe(0);
    t = config.buildDelayMs - 1;
    expect(send(cache, messages)).toBe(0);
    // Seen whole before: no common-prefix unit at its last block end, only its own end unit.
    expect(cache.units.entries()).toBe(1);
    t = config.buildDelayMs;
    const whole = render(messages).prompt.tokens;
    expect(send(cache, messages)).toBe(whole);
    t += config.ttlMs - 1; // served at buildDelayMs: the TTL runs from there
    expect(send(cache, messages)).toBe(whole);
    t += config.ttlMs;
    expect(send(cache, messages)).toBe(0);
  });

  it('the interval, the common prefix and the fan-out order', () => {
    let t = 0;
    const cache = createUnitCache(config, rules, () => t);
    const forks = [1, 2, 3, 4].map((i) => prompt('order', 9000, i));
    const p = sharedBlocks(forks[0] as object[], forks[1] as object[]);
    expect(p).toBeGreaterThan(2 * INTERVAL);
    expect(send(cache, forks[0] as ChatMessage[])).toBe(0);
    t += config.buildDelayMs;
    expect(send(cache, forks[1] as ChatMessage[])).toBe(2 * INTERVAL);
    // Made by fork 2, not yet built: fork 3 at the same instant still gets the interval.
    expect(send(cache, forks[2] as ChatMessage[])).toBe(2 * INTERVAL);
    t += config.buildDelayMs;
    expect(send(cache, forks[3] as ChatMessage[])).toBe(p);
  });

  it('the store keeps at most maxUnits, dropping the least recently served first', () => {
    let t = 0;
    const units = createPrefixUnits({ ttlMs: 1000, buildDelayMs: 0, maxUnits: 3 }, () => t);
    const end = (key: number): { key: number; tokens: number } => ({ key, tokens: 64 * key });
    units.create([end(1), end(2), end(3)]);
    t += 1;
    expect(units.serve([end(1), end(9)])).toBe(64); // served: now the most recent
    units.create([end(4)]);
    expect([units.entries(), units.evictions()]).toEqual([3, 1]);
    expect(units.serve([end(2)])).toBe(0); // the least recently used went
    expect(units.serve([end(1), end(3), end(4)])).toBe(256); // the longest of those held
  });

  it('the cache bounds its units by capacity / 64', () => {
    const cache = createUnitCache({ ...config, capacityTokens: 2 * G, buildDelayMs: 0 }, rules, () => 0);
    for (const i of [1, 2, 3, 4]) send(cache, [{ role: 'user', content: `${padding(100, `bound${i}`)} REPLY ${i}` }]);
    expect(cache.units.entries()).toBe(2);
    expect(cache.units.evictions()).toBeGreaterThan(0);
  });

  it('a unit shorter than 64 tokens is never made', () => {
    const cache = createUnitCache({ ...config, buildDelayMs: 0 }, rules, () => 0);
    const tiny: ChatMessage[] = [{ role: 'user', content: 'REPLY hi' }];
    expect(render(tiny).prompt.tokens).toBeLessThan(G);
    send(cache, tiny);
    expect(cache.units.entries()).toBe(0);
    expect(send(cache, tiny)).toBe(0);
  });
});
