import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkEngineOptions, type ParentSession } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { anthropicSession, openAIChatSession, parentSession } from './support/engine-fixtures.js';

/*
 * One request path (issue 23): the headless parent loop and its forks build every request through
 * the same function, with the same cache key and breakpoint rules. Through runParentAgent, on every
 * shape, a fork's first request carries the parent's first request byte for byte up to the
 * parent's last message, as the official SDKs put both on the wire (bodies captured at the server).
 */

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

interface Shape {
  name: string;
  session: () => ParentSession;
  provider: () => ForkEngineOptions['provider'];
  /** The model requests among the captured ones (the simulator's route kinds). */
  route: RegExp;
  /** The body's conversation, as its API names it. */
  messages: (body: Record<string, unknown>) => unknown[];
}

const SHAPES: Shape[] = [
  {
    name: 'Gemini (@google/genai, local)',
    session: () => parentSession([], { marker: 'MARKER-6161', words: 400 }),
    provider: () => ({ kind: 'local', url: server.url }),
    route: /^(stream)?generateContent$/i,
    messages: (body) => body.contents as unknown[],
  },
  {
    name: 'Chat Completions (openai SDK, kind openai)',
    session: () => openAIChatSession([], { marker: 'MARKER-6262', words: 400 }),
    provider: () => ({ kind: 'openai', apiKey: 'sk-test-not-real', baseUrl: `${server.url}/v1` }),
    route: /^chat\.completions$/,
    messages: (body) => body.messages as unknown[],
  },
  {
    name: 'Anthropic Messages (@anthropic-ai/sdk, kind anthropic)',
    session: () => anthropicSession([], { marker: 'MARKER-6363', words: 400 }),
    provider: () => ({ kind: 'anthropic', apiKey: 'sk-ant-test-not-real', baseUrl: server.url }),
    route: /^messages$/,
    messages: (body) => body.messages as unknown[],
  },
];

/**
 * A message as the API reads it: without the cache_control a breakpoint adds, and string content as
 * the one text block it stands for (a breakpoint on a string message makes it that block).
 */
function unmarked(message: unknown): string {
  const m = message as { content?: unknown };
  const read =
    typeof m.content === 'string' && 'role' in (message as object) && !('parts' in (message as object))
      ? { ...m, content: [{ type: 'text', text: m.content }] }
      : message;
  return JSON.stringify(read, (key, value) => (key === 'cache_control' ? undefined : value));
}

describe.each(SHAPES)('one request path: $name', (shape) => {
  it("a fork's first request opens with the parent's first request, byte for byte, up to the parent's last message", async () => {
    const engine = await ForkEngine.create({ provider: shape.provider(), threads: 1 });
    const start = server.requests.length;
    try {
      const outcome = await engine.runParentAgent(shape.session(), 'FORK RECALL MARKER-\\d{4}');
      expect(outcome.status).toBe('completed');
      expect(outcome.forks.map((f) => f.status)).toEqual(['completed']);
      expect(outcome.text).toContain('MARKER-6');
    } finally {
      await engine.close();
    }
    const sent = server.requests.slice(start).filter((r) => shape.route.test(r.route));
    const fork = sent.find((r) => r.body.includes('<fork-boilerplate>'));
    const parent = sent[0];
    expect(parent).toBeDefined();
    expect(fork).toBeDefined();
    const parentBody = JSON.parse(parent?.body ?? '{}') as Record<string, unknown>;
    const forkBody = JSON.parse(fork?.body ?? '{}') as Record<string, unknown>;
    const parentMessages = shape.messages(parentBody);
    const last = parentMessages[parentMessages.length - 1];
    // Everything before the parent's last message: the same bytes in both bodies.
    const lastAt = (parent?.body ?? '').lastIndexOf(JSON.stringify(last));
    expect(lastAt).toBeGreaterThan(0);
    expect(fork?.body.slice(0, lastAt)).toBe(parent?.body.slice(0, lastAt));
    // The last message itself: the same content (a breakpoint may mark it in one request and not the other).
    expect(unmarked(shape.messages(forkBody)[parentMessages.length - 1])).toBe(unmarked(last));
  });
});

describe('one request path: the same rules for the parent and its forks', () => {
  it('OpenAI: every request of the parent and of its forks carries the one prompt_cache_key', async () => {
    const engine = await ForkEngine.create({
      provider: { kind: 'openai', apiKey: 'sk-test-not-real', baseUrl: `${server.url}/v1` },
      threads: 1,
    });
    const start = server.requests.length;
    try {
      await engine.runParentAgent(openAIChatSession([], { marker: 'MARKER-6464', words: 50 }), 'FORK RECALL MARKER-\\d{4}');
    } finally {
      await engine.close();
    }
    const keys = server.requests
      .slice(start)
      .filter((r) => r.route === 'chat.completions')
      .map((r) => (JSON.parse(r.body) as { prompt_cache_key?: unknown }).prompt_cache_key);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it("Anthropic: the parent's latest message and a fork's inherited end each carry a breakpoint", async () => {
    const engine = await ForkEngine.create({
      provider: { kind: 'anthropic', apiKey: 'sk-ant-test-not-real', baseUrl: server.url },
      threads: 1,
    });
    const start = server.requests.length;
    try {
      await engine.runParentAgent(anthropicSession([], { marker: 'MARKER-6565', words: 50 }), 'FORK RECALL MARKER-\\d{4}');
    } finally {
      await engine.close();
    }
    const sent = server.requests.slice(start).filter((r) => r.route === 'messages');
    const marks = (body: string): number => (body.match(/"cache_control"/g) ?? []).length;
    const parentFirst = sent[0]?.body ?? '';
    const forkFirst = sent.find((r) => r.body.includes('<fork-boilerplate>'))?.body ?? '';
    const lastOf = (body: string): unknown => (JSON.parse(body) as { messages: unknown[] }).messages.at(-1);
    expect(JSON.stringify(lastOf(parentFirst))).toContain('"cache_control"');
    expect(marks(parentFirst)).toBe(1);
    // The end of the inherited history and the fork's latest message.
    expect(marks(forkFirst)).toBe(2);
    expect(JSON.stringify(lastOf(forkFirst))).toContain('"cache_control"');
  });
});
