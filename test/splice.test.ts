// Internal: freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
// Tests the request splice (src/transport/splice.ts) inside each provider's client: what a spliced request puts on the wire is what the SDK alone sends.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewMessage } from '../src/shapes/registry.js';
import { openConversation } from '../src/fork-thread/conversation.js';
import { seedForkTask } from '../src/fork/fork-seed.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { requestDecorator } from '../src/model/decorate.js';
import type { RequestCache } from '../src/model/plan.js';
import { createProvider } from '../src/model/providers/index.js';
import type { AnthropicRequest, GeminiRequest, ModelMessage, ModelRequest, OpenAIChatRequest, ProviderConfig } from '../src/model/types.js';
import type { ForkTask, ParentSession, SessionFormat } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { markShared } from '../src/transport/shared-objects.js';
import { splicedRequestCount } from '../src/transport/splice.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

const KEY = 'sk-splice-test-not-real';
// Text JSON escapes (quotes, controls, U+2028), characters outside the BMP, and numbers JSON.stringify rewrites.
const AWKWARD = 'quote " backslash \\ tab \t nul \u0000 line-sep \u2028 é 漢 😀 </script>';

function read(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** A session with awkward text in a message of its history, and numbers JSON writes its own way (1.5, 1e21) in its settings. */
function awkward(session: Record<string, unknown>, format: SessionFormat): ParentSession {
  const copy = structuredClone(session);
  if (format === 'gemini') {
    (copy.history as { parts: { text?: string }[] }[])[0]?.parts.push({ text: AWKWARD });
    copy.generationConfig = { ...(copy.generationConfig as object), temperature: 1.5, seed: 1e21 };
  } else {
    (copy.messages as { role: string; content: unknown }[]).splice(
      format === 'openai-chat' ? 1 : 0,
      0,
      { role: 'user', content: AWKWARD },
      { role: 'assistant', content: 'Noted.' },
    );
    // Anthropic's current API version refuses sampling settings; Chat Completions takes them.
    if (format === 'openai-chat') copy.temperature = 1.5;
  }
  return copy as unknown as ParentSession;
}

interface Shape {
  name: string;
  format: SessionFormat;
  session: () => ParentSession;
  config: () => ProviderConfig;
  cache: RequestCache;
  /** A model reply calling one tool, in the shape's own terms. */
  reply: ModelMessage;
  /** The same request sent by the official SDK alone (its own fetch, nothing spliced). */
  sdkAlone(request: ModelRequest): Promise<unknown>;
}

const drain = async (stream: AsyncIterable<unknown>): Promise<void> => {
  for await (const _ of stream);
};
const ignore = (): void => undefined;

const SHAPES: Shape[] = [
  {
    name: 'Gemini (@google/genai)',
    format: 'gemini',
    session: () => awkward(read('examples/session.json'), 'gemini'),
    config: () => ({ kind: 'gemini', apiKey: KEY, baseUrl: server.url }),
    cache: { mechanism: 'none' },
    reply: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'README.md' } } }] },
    async sdkAlone(request) {
      const r = request as GeminiRequest;
      const client = new GoogleGenAI({ vertexai: false, apiKey: KEY, httpOptions: { baseUrl: server.url } });
      const config = {
        ...r.generationConfig,
        ...(r.cachedContent !== undefined ? { cachedContent: r.cachedContent } : {}),
        ...(r.systemInstruction !== undefined ? { systemInstruction: r.systemInstruction as never } : {}),
        ...(r.tools !== undefined ? { tools: r.tools as never } : {}),
        ...(r.toolConfig !== undefined ? { toolConfig: r.toolConfig as never } : {}),
      };
      await drain(await client.models.generateContentStream({ model: r.model, contents: r.contents as never, config })).catch(ignore);
    },
  },
  {
    name: 'Chat Completions (openai), cache key',
    format: 'openai-chat',
    session: () => awkward(read('examples/openai-session.json'), 'openai-chat'),
    config: () => ({ kind: 'openai', apiKey: KEY, baseUrl: `${server.url}/v1` }),
    cache: { mechanism: 'cache-key', key: 'run-key' },
    reply: {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }],
    },
    async sdkAlone(request) {
      const r = request as OpenAIChatRequest;
      const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const body = {
        ...r.body,
        stream: true,
        stream_options: { include_usage: true },
        ...(r.promptCacheKey !== undefined ? { prompt_cache_key: r.promptCacheKey } : {}),
      };
      await drain((await client.chat.completions.create(body as never)) as never).catch(ignore);
    },
  },
  {
    name: 'Chat Completions (openai), DashScope marker',
    format: 'openai-chat',
    session: () => awkward(read('examples/openai-session.json'), 'openai-chat'),
    config: () => ({ kind: 'dashscope', apiKey: KEY, baseUrl: `${server.url}/v1` }),
    cache: { mechanism: 'marker' },
    reply: {
      role: 'assistant',
      content: 'Reading it.',
      tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
    },
    async sdkAlone(request) {
      const r = request as OpenAIChatRequest;
      const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
      await drain(
        (await client.chat.completions.create({ ...r.body, stream: true, stream_options: { include_usage: true } } as never)) as never,
      ).catch(ignore);
    },
  },
  {
    name: 'Anthropic Messages (@anthropic-ai/sdk), breakpoints',
    format: 'anthropic-messages',
    session: () => awkward(read('examples/anthropic-session.json'), 'anthropic-messages'),
    config: () => ({ kind: 'anthropic', apiKey: KEY, baseUrl: server.url }),
    cache: { mechanism: 'breakpoints', parent: 0, ttl: '5m' },
    reply: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'README.md' } }] },
    async sdkAlone(request) {
      const r = request as AnthropicRequest;
      const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
      await drain((await client.messages.create({ ...r.body, stream: true } as never)) as never).catch(ignore);
    },
  },
];

const TASKS: ForkTask[] = [
  { id: 'inherit', directive: `Read the README. ${AWKWARD}` },
  { id: 'completed', directive: 'Summarize.', history: 'completed-turns' },
  { id: 'window', directive: 'Only the last turn.', forkTurns: 1 },
  { id: 'fresh', directive: 'Start over.', subagentType: 'general-purpose' },
];

/** The body the server received last. */
function lastBody(): string {
  const body = server.requests.at(-1)?.body;
  if (body === undefined) throw new Error('the server received nothing');
  return body;
}

describe.each(SHAPES)('$name', (shape) => {
  it('puts on the wire, call after call, what the SDK alone sends for the same request', async () => {
    const prefix = freezePrefix(shape.session());
    markShared(prefix.session as unknown as Record<string, unknown>);
    const provider = createProvider(shape.config(), shape.format);
    const splicedBefore = splicedRequestCount();
    let compared = 0;
    for (const task of TASKS) {
      const seed = seedForkTask(prefix.session, task, { history: 'inherit', spawnTools: ['agent'] });
      const conversation = openConversation(
        seed,
        requestDecorator({ request: shape.cache, shape: shape.format }, { shared: seed.sharedContents, window: 'w' }),
      );
      for (let turn = 0; turn < 3; turn++) {
        const request = conversation.request();
        await provider.generate(request, { signal: new AbortController().signal });
        const spliced = lastBody();
        await shape.sdkAlone(request);
        const alone = lastBody();
        expect(spliced.length, `${task.id}, call ${turn + 1}`).toBe(alone.length);
        expect(spliced === alone, `${task.id}, call ${turn + 1}: bytes differ`).toBe(true);
        compared++;
        conversation.push(shape.reply);
        conversation.answer(viewMessage(shape.reply).calls, [{ content: `${AWKWARD} (turn ${turn})` }]);
      }
    }
    expect(compared).toBe(TASKS.length * 3);
    // Every call of a fork that inherits anything had its shared bytes spliced in, not re-serialized.
    expect(splicedRequestCount() - splicedBefore).toBeGreaterThanOrEqual(9);
  });
});
