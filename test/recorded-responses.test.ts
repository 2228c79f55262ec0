// Internal: the built-in provider clients (src/model/genai.ts, openai-chat.ts, openai-responses.ts, anthropic.ts) and classifyError (src/model/errors.ts); ForkEngine's `provider: { kind: 'gemini' }` is their public face, as is the CLI's --provider.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ForkEngine, type ParentSession } from '../src/index.js';
import { createAiSdkProvider } from '../src/model/ai-sdk.js';
import { createAnthropicProvider } from '../src/model/anthropic.js';
import { classifyError } from '../src/model/errors.js';
import { createGenaiProvider } from '../src/model/genai.js';
import { createOpenAIChatProvider } from '../src/model/openai-chat.js';
import { createOpenAIResponsesProvider } from '../src/model/openai-responses.js';
import { billedTokens, type ModelOutcome, type ModelProvider, type ModelRequest } from '../src/model/types.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startReplayServer, type ReplayServer } from './support/replay-server.js';

/*
 * Responses recorded from the live APIs (test/fixtures/recorded/, origins in its README), replayed by
 * a server in another process (test/support/replay-server.mjs adds only the API's framing) and read by
 * forkpool's own clients over the official SDKs. Each usage is checked against the total the provider
 * itself put in the recording (totalTokenCount, total_tokens): what forkpool counts is what is billed.
 */

const RECORDED = new URL('./fixtures/recorded/', import.meta.url);
const ONE_ATTEMPT = { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 };
let replay: ReplayServer;

beforeAll(async () => {
  replay = await startReplayServer();
});
afterAll(async () => {
  await replay.close();
});

function recording(provider: string, file: string): string {
  return readFileSync(new URL(`${provider}/${file}`, RECORDED), 'utf8');
}

/** The chunks of an AI SDK stream recording (one JSON object a line). */
function chunks(provider: string, file: string): Record<string, unknown>[] {
  return recording(provider, file)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The last usage a stream recording carries under `key` (each provider's counts are cumulative). */
function lastUsage(provider: string, file: string, key: string): Record<string, number> {
  const found = chunks(provider, file)
    .map((chunk) => chunk[key])
    .filter((usage) => usage !== null && typeof usage === 'object');
  return found.at(-1) as Record<string, number>;
}

interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount: number;
  totalTokenCount: number;
  toolUsePromptTokenCount?: number;
  cachedContentTokenCount?: number;
}

/** The usage of the last segment of a js-genai recording's nth interaction. */
function genaiRecordedUsage(file: string, interaction: number): GeminiUsageMetadata {
  const recorded = JSON.parse(recording('gemini', file)) as {
    interactions: { response: { bodySegments: { usageMetadata?: GeminiUsageMetadata }[] } }[];
  };
  const segments = recorded.interactions[interaction]?.response.bodySegments ?? [];
  const usage = segments.flatMap((s) => (s.usageMetadata ? [s.usageMetadata] : [])).at(-1);
  if (usage === undefined) throw new Error(`${file}: no usageMetadata in interaction ${interaction}`);
  return usage;
}

const call = (provider: ModelProvider, request: ModelRequest): Promise<ModelOutcome> =>
  provider.generate(request, { signal: new AbortController().signal });

function succeeded(outcome: ModelOutcome): Extract<ModelOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`the call failed: ${outcome.error.message}`);
  return outcome;
}

function failed(outcome: ModelOutcome): Extract<ModelOutcome, { ok: false }> {
  if (outcome.ok) throw new Error('the call succeeded');
  return outcome;
}

const geminiRequest: ModelRequest = {
  format: 'gemini',
  model: 'gemini-3-pro-preview',
  contents: [{ role: 'user', parts: [{ text: 'How many r in strawberry?' }] }],
};
const gemini = (...files: string[]): ModelProvider =>
  createGenaiProvider({
    kind: 'gemini',
    apiKey: 'recorded-replay-key-0123456789',
    baseUrl: replay.base('gemini', ...files),
    retry: ONE_ATTEMPT,
  });

describe('Gemini, recorded', () => {
  it("gemini-3-pro's thoughts are billed output: prompt + output is the response's totalTokenCount", async () => {
    const file = 'google-reasoning-gemini3.chunks.txt';
    const outcome = succeeded(await call(gemini(file), geminiRequest));
    const recorded = lastUsage('gemini', file, 'usageMetadata');
    expect(recorded).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 23, thoughtsTokenCount: 302, totalTokenCount: 334 });
    expect(outcome.usage).toEqual({ promptTokens: 9, cachedTokens: 0, outputTokens: 23 + 302, reasoningTokens: 302 });
    expect(billedTokens(outcome.usage)).toBe(recorded.totalTokenCount);
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'STOP' });
    expect(outcome.responseModel).toBe('gemini-3-pro-preview');
  });

  it('toolUsePromptTokenCount is billed on top of promptTokenCount: only with it do the counts make the total', async () => {
    const file = 'Client_Tests_server_side_MCP_server_ML_Dev_should_call_server_side_MCP_server,_stream.json';
    const outcome = succeeded(await call(gemini(file), { ...geminiRequest, model: 'gemini-2.5-flash' }));
    const recorded = genaiRecordedUsage(file, 0);
    expect(recorded).toMatchObject({
      promptTokenCount: 22,
      candidatesTokenCount: 101,
      thoughtsTokenCount: 573,
      toolUsePromptTokenCount: 124,
      totalTokenCount: 820,
    });
    // Without the tool-use prompt the parts fall 124 short of what Google counted.
    expect(recorded.promptTokenCount + recorded.candidatesTokenCount + recorded.thoughtsTokenCount).toBe(recorded.totalTokenCount - 124);
    expect(outcome.usage).toEqual({
      promptTokens: 22,
      cachedTokens: 0,
      outputTokens: 101 + 573,
      reasoningTokens: 573,
      toolUsePromptTokens: 124,
    });
    expect(billedTokens(outcome.usage)).toBe(recorded.totalTokenCount);
  });

  it('cached reads are part of the prompt (cachedContentTokenCount of promptTokenCount), beside tool-use input', async () => {
    const file = 'Chats_Tests_sendMessage_multiple_messages_with_server_side_MCP_tools_stream.json';
    const provider = gemini(file);
    const first = succeeded(await call(provider, { ...geminiRequest, model: 'gemini-2.5-flash' }));
    expect(billedTokens(first.usage)).toBe(genaiRecordedUsage(file, 0).totalTokenCount);
    // The chat's second turn: the recording's second interaction.
    const second = succeeded(await call(provider, { ...geminiRequest, model: 'gemini-2.5-flash' }));
    const recorded = genaiRecordedUsage(file, 1);
    expect(recorded).toMatchObject({
      promptTokenCount: 1844,
      cachedContentTokenCount: 901,
      toolUsePromptTokenCount: 1934,
      totalTokenCount: 4301,
    });
    expect(second.usage).toEqual({
      promptTokens: 1844,
      cachedTokens: 901,
      outputTokens: 432 + 91,
      reasoningTokens: 91,
      toolUsePromptTokens: 1934,
    });
    expect(billedTokens(second.usage)).toBe(recorded.totalTokenCount);
  });

  it('an answer cut by MAX_TOKENS finishes `length`, its text kept', async () => {
    const file = 'Client_Tests_generateContentStream_ML_Dev_should_stream_generate_content_with_specified_parameters.json';
    const outcome = succeeded(await call(gemini(file), { ...geminiRequest, model: 'gemini-2.5-flash' }));
    expect(outcome.finish).toEqual({ reason: 'length', raw: 'MAX_TOKENS' });
    const text = (outcome.message as { parts: { text?: string }[] }).parts.map((p) => p.text ?? '').join('');
    expect(text).toContain('Rayleigh Scattering');
    expect(billedTokens(outcome.usage)).toBe(genaiRecordedUsage(file, 0).totalTokenCount);
  });

  it("a 429's RetryInfo is the wait asked for, and the call may be sent again", async () => {
    const outcome = failed(await call(gemini('google-429-retry-info.json'), geminiRequest));
    expect(outcome.error).toMatchObject({ kind: 'http', status: 429, retryable: true, retryAfterMs: 34_400 });
    expect(outcome.error.message).toBe('You exceeded your current quota, please check your plan.');
  });

  it("a key of one letter leaves the 429's words whole", async () => {
    const provider = createGenaiProvider({
      kind: 'gemini',
      apiKey: 'e',
      baseUrl: replay.base('gemini', 'google-429-retry-info.json'),
      retry: ONE_ATTEMPT,
    });
    const outcome = failed(await call(provider, geminiRequest));
    expect(outcome.error.message).toBe('You exceeded your current quota, please check your plan.');
  });

  it("a Gemini 3 function call's thoughtSignature goes back with the call in the fork's next request", async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'The weather at a place.',
      parameters: z.object({ location: z.string() }),
      execute: ({ location }) => ({ location, temperature: 18 }),
    });
    const toolCall = 'google-tool-call-gemini3.chunks.txt';
    const engine = await ForkEngine.create({
      provider: {
        kind: 'gemini',
        apiKey: 'recorded-replay-key-0123456789',
        baseUrl: replay.base('gemini', toolCall, 'google-reasoning-gemini3.chunks.txt'),
      },
      threads: 1,
      tools: [weather],
    });
    try {
      const session: ParentSession = {
        model: 'gemini-3-pro-preview',
        tools: [
          {
            functionDeclarations: [
              { name: 'weather', description: 'The weather at a place.', parametersJsonSchema: weather.declaration.parametersJsonSchema },
            ],
          },
        ],
        history: [{ role: 'user', parts: [{ text: 'What is the weather in San Francisco?' }] }],
      };
      const start = (await replay.requests()).length;
      const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'sf', directive: 'Ask the weather tool.' }]).results();
      expect(result?.status).toBe('completed');
      expect(result?.toolCalls).toBe(1);
      const sent = (await replay.requests())
        .slice(start)
        .map((r) => JSON.parse(r.body) as { contents: { role: string; parts: Record<string, unknown>[] }[] });
      expect(sent).toHaveLength(2);
      const recordedPart = (chunks('gemini', toolCall)[0] as { candidates: { content: { parts: Record<string, unknown>[] } }[] })
        .candidates[0]?.content.parts[0];
      const signature = recordedPart?.thoughtSignature;
      expect(typeof signature).toBe('string');
      const modelTurn = sent[1]?.contents.find((c) => c.role === 'model' && c.parts.some((p) => p.functionCall !== undefined));
      expect(modelTurn?.parts.find((p) => p.functionCall !== undefined)).toEqual({
        functionCall: { name: 'weather', args: { location: 'San Francisco' } },
        thoughtSignature: signature,
      });
      // Both calls are counted as billed: thoughts included.
      expect(result?.usage.outputTokens).toBe(15 + 804 + 23 + 302);
      expect(result?.usage.reasoningTokens).toBe(804 + 302);
    } finally {
      await engine.close();
    }
  });
});

const chatRequest: ModelRequest = { format: 'openai-chat', body: { model: 'recorded', messages: [{ role: 'user', content: 'Hello' }] } };
const chat = (kind: string, file: string): ModelProvider =>
  createOpenAIChatProvider({ kind, apiKey: 'recorded-replay-key-0123456789', baseUrl: replay.base(kind, file), retry: ONE_ATTEMPT });

describe('Chat Completions, recorded (OpenAI, DeepSeek, DashScope)', () => {
  it.each([
    ['openai', 'openai-text.chunks.txt', { promptTokens: 16, cachedTokens: 0, outputTokens: 300, reasoningTokens: 0 }, 'stop'],
    ['openai', 'azure-model-router.1.chunks.txt', { promptTokens: 15, cachedTokens: 0, outputTokens: 78, reasoningTokens: 64 }, 'stop'],
    ['deepseek', 'deepseek-reasoning.chunks.txt', { promptTokens: 18, cachedTokens: 0, outputTokens: 219, reasoningTokens: 205 }, 'stop'],
    [
      'deepseek',
      'deepseek-tool-call.chunks.txt',
      { promptTokens: 339, cachedTokens: 320, outputTokens: 83, reasoningTokens: 39 },
      'tool_calls',
    ],
    ['dashscope', 'alibaba-reasoning.chunks.txt', { promptTokens: 24, cachedTokens: 0, outputTokens: 1355, reasoningTokens: 1084 }, 'stop'],
  ])('%s %s: usage as billed (reasoning inside completion_tokens), prompt + output = total_tokens', async (kind, file, usage, reason) => {
    const outcome = succeeded(await call(chat(kind, file), chatRequest));
    expect(outcome.usage).toEqual(usage);
    expect(billedTokens(outcome.usage)).toBe(lastUsage(kind, file, 'usage').total_tokens);
    expect(outcome.finish?.reason).toBe(reason);
  });

  it("DeepSeek's cache hits are read from prompt_cache_hit_tokens, the same as cached_tokens", () => {
    const recorded = lastUsage('deepseek', 'deepseek-tool-call.chunks.txt', 'usage') as unknown as {
      prompt_cache_hit_tokens: number;
      prompt_tokens_details: { cached_tokens: number };
    };
    expect(recorded.prompt_cache_hit_tokens).toBe(recorded.prompt_tokens_details.cached_tokens);
  });

  it('a DeepSeek answer cut at the output limit finishes `length`, its text kept', async () => {
    const outcome = succeeded(await call(chat('deepseek', 'deepseek-text.chunks.txt'), chatRequest));
    expect(outcome.finish).toEqual({ reason: 'length', raw: 'length' });
    expect(outcome.usage.outputTokens).toBe(400);
    const recordedText = chunks('deepseek', 'deepseek-text.chunks.txt')
      .map((c) => (c.choices as { delta?: { content?: string } }[])[0]?.delta?.content ?? '')
      .join('');
    expect((outcome.message as { content: string }).content).toBe(recordedText);
  });
});

const responsesRequest: ModelRequest = {
  format: 'openai-responses',
  body: { model: 'recorded', input: [{ role: 'user', content: 'Hello' }] },
};
const responses = (file: string, mode?: 'generate'): ModelProvider =>
  createOpenAIResponsesProvider({
    kind: 'openai',
    apiKey: 'recorded-replay-key-0123456789',
    baseUrl: replay.base('openai', file),
    retry: ONE_ATTEMPT,
    ...(mode !== undefined ? { mode } : {}),
  });

/** The usage of a Responses stream recording's response.completed. */
function completedUsage(file: string): Record<string, number> {
  const done = chunks('openai', file).find((e) => e.type === 'response.completed') as { response: { usage: Record<string, number> } };
  return done.response.usage;
}

describe('Responses API, recorded', () => {
  it('cached reads and reasoning (inside output_tokens): input + output = total_tokens', async () => {
    const outcome = succeeded(await call(responses('openai-phase.1.chunks.txt'), responsesRequest));
    expect(outcome.usage).toEqual({ promptTokens: 7112, cachedTokens: 3072, outputTokens: 463, reasoningTokens: 64 });
    expect(billedTokens(outcome.usage)).toBe(completedUsage('openai-phase.1.chunks.txt').total_tokens);
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'completed' });
  });

  it('a whole response (mode: generate, stream: false) is read as a stream’s last event: usage, finish, every output item', async () => {
    const start = (await replay.requests()).length;
    const outcome = succeeded(await call(responses('openai-phase.1.json', 'generate'), responsesRequest));
    const [sent] = (await replay.requests()).slice(start);
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ stream: false });
    const recorded = JSON.parse(readFileSync(new URL('./fixtures/recorded/openai/openai-phase.1.json', import.meta.url), 'utf8')) as {
      usage: { total_tokens: number };
      output: unknown[];
    };
    expect(outcome.usage).toEqual({ promptTokens: 7243, cachedTokens: 3072, outputTokens: 423, reasoningTokens: 58 });
    expect(billedTokens(outcome.usage)).toBe(recorded.usage.total_tokens);
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'completed' });
    expect((outcome.message as { output: unknown[] }).output).toEqual(recorded.output);
  });

  it('cache_write_tokens is read where the response has the field (here a recorded 0, not unknown)', async () => {
    const outcome = succeeded(await call(responses('github-copilot-id-rotation.1.chunks.txt'), responsesRequest));
    expect(outcome.usage).toEqual({ promptTokens: 19, cachedTokens: 0, outputTokens: 105, reasoningTokens: 44, cacheWriteTokens: 0 });
    expect(billedTokens(outcome.usage)).toBe(completedUsage('github-copilot-id-rotation.1.chunks.txt').total_tokens);
  });

  it('insufficient_quota, in the stream or as a 429, is not sent again: the quota must be bought first', async () => {
    const inStream = failed(await call(responses('openai-error.1.chunks.txt'), responsesRequest));
    expect(inStream.error).toMatchObject({ kind: 'http', retryable: false });
    expect(inStream.error.message).toContain('You exceeded your current quota');
    const asStatus = failed(await call(responses('openai-error.1.json'), responsesRequest));
    expect(asStatus.error).toMatchObject({ kind: 'http', status: 429, retryable: false });
    expect(asStatus.error.message).toContain('You exceeded your current quota');
  });
});

const anthropicRequest: ModelRequest = {
  format: 'anthropic-messages',
  body: { model: 'recorded', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] },
};
const anthropic = (file: string): ModelProvider =>
  createAnthropicProvider({
    kind: 'anthropic',
    apiKey: 'recorded-replay-key-0123456789',
    baseUrl: replay.base('anthropic', file),
    retry: ONE_ATTEMPT,
  });

describe('Anthropic Messages, recorded', () => {
  it("cache writes and reads: the prompt is input + read + written, message_delta's counts over message_start's", async () => {
    const file = 'anthropic-code-execution-20260120-prompt-cache.1.chunks.txt';
    const outcome = succeeded(await call(anthropic(file), anthropicRequest));
    const recorded = lastUsage('anthropic', file, 'usage');
    expect(recorded).toMatchObject({
      input_tokens: 6,
      cache_read_input_tokens: 6289,
      cache_creation_input_tokens: 3337,
      output_tokens: 198,
    });
    expect(outcome.usage).toEqual({
      promptTokens: 6 + 6289 + 3337,
      cachedTokens: 6289,
      outputTokens: 198,
      reasoningTokens: 0,
      cacheWriteTokens: 3337,
      cacheWrite1hTokens: 0,
    });
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'end_turn' });
  });

  it("message_delta's input_tokens replaces message_start's", async () => {
    const outcome = succeeded(await call(anthropic('anthropic-message-delta-input-tokens.chunks.txt'), anthropicRequest));
    expect(outcome.usage).toEqual({ promptTokens: 61, cachedTokens: 0, outputTokens: 2 });
  });

  it('a thinking block is kept with its signature; its tokens are inside output_tokens', async () => {
    const outcome = succeeded(await call(anthropic('anthropic-clear-thinking.1.chunks.txt'), anthropicRequest));
    const [thinking] = (outcome.message as { content: Record<string, unknown>[] }).content;
    expect(thinking?.type).toBe('thinking');
    expect(typeof thinking?.signature).toBe('string');
    expect(String(thinking?.thinking).length).toBeGreaterThan(0);
    expect(outcome.usage).toEqual({ promptTokens: 69, cachedTokens: 0, outputTokens: 53, cacheWriteTokens: 0, cacheWrite1hTokens: 0 });
  });

  it('a refusal finishes `refusal`; a tool call `tool_calls` with its input', async () => {
    expect(succeeded(await call(anthropic('anthropic-refusal.chunks.txt'), anthropicRequest)).finish).toEqual({
      reason: 'refusal',
      raw: 'refusal',
    });
    const tool = succeeded(await call(anthropic('anthropic-tool-no-args.chunks.txt'), anthropicRequest));
    expect(tool.finish).toEqual({ reason: 'tool_calls', raw: 'tool_use' });
    expect((tool.message as { content: Record<string, unknown>[] }).content.find((b) => b.type === 'tool_use')).toMatchObject({
      input: {},
    });
  });
});

/** A model of an AI SDK provider package (installed as the project's own), pointed at a recording. */
function aiSdk(pkg: '@ai-sdk/openai' | '@ai-sdk/anthropic', method: 'chat' | undefined, baseURL: string): ModelProvider {
  const factory = pkg === '@ai-sdk/openai' ? 'createOpenAI' : 'createAnthropic';
  return createAiSdkProvider({
    kind: 'ai-sdk',
    retry: ONE_ATTEMPT,
    aiSdk: {
      package: pkg,
      factory,
      ...(method !== undefined ? { method } : {}),
      model: 'recorded',
      settings: { baseURL, apiKey: { env: 'FORKPOOL_RECORDED_KEY' } },
    },
  });
}

describe('the same recordings through AI SDK provider packages', () => {
  const request: ModelRequest = { format: 'ai-sdk', body: { model: 'recorded', messages: [{ role: 'user', content: 'Hello' }] } };
  beforeAll(() => {
    process.env.FORKPOOL_RECORDED_KEY = 'recorded-replay-key-0123456789';
  });
  afterAll(() => {
    delete process.env.FORKPOOL_RECORDED_KEY;
  });

  it("@ai-sdk/anthropic: cache writes and reads counted as forkpool's own client counts them", async () => {
    const outcome = succeeded(
      await call(
        aiSdk('@ai-sdk/anthropic', undefined, replay.base('anthropic', 'anthropic-code-execution-20260120-prompt-cache.1.chunks.txt')),
        request,
      ),
    );
    expect(outcome.usage).toMatchObject({ promptTokens: 6 + 6289 + 3337, cachedTokens: 6289, outputTokens: 198, cacheWriteTokens: 3337 });
    expect(outcome.finish).toEqual({ reason: 'stop', raw: 'end_turn' });
  });

  it('@ai-sdk/openai (chat) on DeepSeek: cache hits, reasoning, and the cut answer said', async () => {
    const tool = succeeded(await call(aiSdk('@ai-sdk/openai', 'chat', replay.base('deepseek', 'deepseek-tool-call.chunks.txt')), request));
    expect(tool.usage).toEqual({ promptTokens: 339, cachedTokens: 320, outputTokens: 83, reasoningTokens: 39 });
    const cut = succeeded(await call(aiSdk('@ai-sdk/openai', 'chat', replay.base('deepseek', 'deepseek-text.chunks.txt')), request));
    expect(cut.finish).toEqual({ reason: 'length', raw: 'length' });
  });

  it("@ai-sdk/openai (Responses): usage as billed; insufficient_quota's 429 is not sent again", async () => {
    const outcome = succeeded(await call(aiSdk('@ai-sdk/openai', undefined, replay.base('openai', 'openai-phase.1.chunks.txt')), request));
    expect(outcome.usage).toEqual({ promptTokens: 7112, cachedTokens: 3072, outputTokens: 463, reasoningTokens: 64 });
    const quota = failed(await call(aiSdk('@ai-sdk/openai', undefined, replay.base('openai', 'openai-error.1.json')), request));
    expect(quota.error).toMatchObject({ kind: 'http', status: 429, retryable: false });
  });
});

describe('key redaction', () => {
  const aborted = new AbortController().signal;
  const said = (message: string, secrets: string[]): string =>
    classifyError(Object.assign(new Error(message), { status: 400 }), aborted, null, { secrets }).message;

  it('a long key is replaced wherever it stands whole', () => {
    const key = 'AIzaSyD-recorded-0123456789abcdef';
    expect(said(`API key not valid: ${key}.`, [key])).toBe('API key not valid: [redacted].');
    expect(said(`url?key=${key}&alt=sse`, [key])).toBe('url?key=[redacted]&alt=sse');
    expect(said(`key '${key}' refused`, [key])).toBe("key '[redacted]' refused");
    expect(said(`prefix${key}suffix`, [key])).toBe('prefix[redacted]suffix');
  });

  it('a short key is replaced only where it is a word of its own, never inside another word', () => {
    expect(said('Resource has been exhausted (e.g. check quota).', ['x'])).toBe('Resource has been exhausted (e.g. check quota).');
    expect(said('connect to localhost failed: key local refused', ['local'])).toBe('connect to localhost failed: key [redacted] refused');
    expect(said('Incorrect API key provided: x. You can find your API key at …', ['x'])).toBe(
      'Incorrect API key provided: [redacted]. You can find your API key at …',
    );
    expect(said('the x-api-key header was x', ['x'])).toBe('the x-api-key header was [redacted]');
  });
});

describe('forkpool run against recorded responses', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'forkpool-recorded-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('counts Gemini 3 thoughts as billed output, and --max-tokens stops on the billed figure', async () => {
    const tasks = join(tmp, 'tasks.jsonl');
    const out = join(tmp, 'out.jsonl');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(tasks, ['a', 'b', 'c'].map((id) => JSON.stringify({ id, directive: `Count the r in strawberry (${id}).` })).join('\n'));
    const run = await runCli(
      [
        'run',
        '--session',
        'examples/session.json',
        '--tasks',
        tasks,
        '--out',
        out,
        '--output-format',
        'json',
        '--concurrency',
        '1',
        '--max-tokens',
        '500',
        '--provider',
        'gemini',
        '--base-url',
        replay.base('gemini', 'google-reasoning-gemini3.chunks.txt'),
      ],
      { env: { GEMINI_API_KEY: 'recorded-replay-key-0123456789' } },
    );
    const summary = JSON.parse(run.stdout) as { forks: { completed: number }; promptTokens: number; outputTokens: number };
    // Each fork is billed 334 tokens (9 + 23 + 302): the second brings the run past 500, so the third never starts.
    expect(summary.forks.completed).toBe(2);
    expect(summary.outputTokens).toBe(2 * 325);
    expect(summary.promptTokens).toBe(2 * 9);
    const completed = jsonLines(readFileSync(out, 'utf8')).filter((line) => line.status === 'completed');
    for (const line of completed) expect(line.usage).toEqual({ promptTokens: 9, cachedTokens: 0, outputTokens: 325, reasoningTokens: 302 });
    expect(`${run.stdout}${run.stderr}`).not.toContain('recorded-replay-key-0123456789');
  });
});
