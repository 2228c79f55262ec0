// Internal: NESTED_FORK_ERROR: the fork's fixed wording (src/wording/constants.ts) has no entry point; buildChildMessage comes through forkpool/protocol, the rest through forkpool and forkpool/local-server.
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine, defineTool, type FanOutRun, type ForkEvent, type GeminiSession, type ParentEvent } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { buildChildMessage } from '../src/protocol.js';
import { NESTED_FORK_ERROR } from '../src/fork/index.js';
import { filler } from './support/engine-fixtures.js';

/*
 * Forks share the real parent's cache: what a fork sends of the parent's conversation is what the
 * parent's own SDK request carried, byte for byte. Bodies are captured at the local server.
 */

let server: LocalServer;
let engine: ForkEngine;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, staggerCapMs: 60_000 });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

interface WireBody {
  contents: unknown[];
  systemInstruction?: unknown;
  tools?: unknown;
  toolConfig?: unknown;
  generationConfig?: unknown;
}

const bodiesSince = (start: number): WireBody[] =>
  server.requests
    .slice(start)
    .filter((r) => r.route.endsWith('enerateContent'))
    .map((r) => JSON.parse(r.body) as WireBody);

/** A session whose objects use non-alphabetical key orders at every level. */
function unsortedSession(marker: string): GeminiSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: `Zealous reviewer. ${filler(1200, 'sys')}` }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'search_code',
            description: 'Searches code.',
            parametersJsonSchema: {
              type: 'object',
              properties: { zeta: { type: 'string', description: 'last letter' }, alpha: { minimum: 1, type: 'integer' } },
              required: ['zeta'],
            },
          },
          { parametersJsonSchema: { type: 'object', properties: {} }, description: 'Starts a sub-agent.', name: 'agent' },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    generationConfig: { topP: 0.9, temperature: 0.3, maxOutputTokens: 512 },
    history: [
      { role: 'user', parts: [{ text: `Find the cache code. Remember ${marker}.` }] },
      {
        role: 'model',
        parts: [{ functionCall: { name: 'search_code', args: { zeta: 'cache', alpha: 2, nested: { y: [3, 1], b: true } }, id: 's1' } }],
      },
      { role: 'user', parts: [{ functionResponse: { response: { zz: 'hits', aa: ['src/cache.ts'] }, name: 'search_code', id: 's1' } }] },
      { parts: [{ text: 'The cache lives in src/cache.ts.' }], role: 'model' },
    ],
  };
}

describe('byte fidelity: a fork sends what the parent sent', () => {
  it('prefix fields and every inherited message are byte-identical to the parent SDK request, key orders included', async () => {
    const session = unsortedSession('MARKER-B17E');
    const start = server.requests.length;
    // The parent: its own @google/genai client, handed the session's own objects.
    const parent = new GoogleGenAI({ vertexai: false, apiKey: 'parent-key', httpOptions: { baseUrl: server.url } });
    await parent.models.generateContent({
      model: session.model,
      contents: session.history as never,
      config: {
        ...session.generationConfig,
        systemInstruction: session.systemInstruction as never,
        tools: session.tools as never,
        toolConfig: session.toolConfig as never,
      },
    });
    const run = engine.fanOut(engine.freeze(session), [
      { id: 'one', directive: 'REPLY one' },
      { id: 'two', directive: 'REPLY two' },
    ]);
    expect((await run.results()).map((r) => r.status)).toEqual(['completed', 'completed']);

    const [parentBody, ...forkBodies] = bodiesSince(start) as [WireBody, ...WireBody[]];
    expect(forkBodies).toHaveLength(2);
    const str = (v: unknown): string => JSON.stringify(v);
    // The opaque objects kept the session's order (not sorted) on the wire.
    expect(str(parentBody.tools)).toContain(
      '{"zeta":{"type":"string","description":"last letter"},"alpha":{"minimum":1,"type":"integer"}}',
    );
    expect(str(parentBody.contents)).toContain('"response":{"zz":"hits","aa":["src/cache.ts"]},"name":"search_code","id":"s1"');
    for (const fork of forkBodies) {
      for (const field of ['systemInstruction', 'tools', 'toolConfig', 'generationConfig'] as const) {
        expect(str(fork[field])).toBe(str(parentBody[field]));
      }
      expect(fork.contents).toHaveLength(session.history.length + 1);
      for (let i = 0; i < session.history.length; i++) expect(str(fork.contents[i])).toBe(str(parentBody.contents[i]));
      // The whole body, up to the fork's own message, is the parent's: one shared run of bytes.
      const parentHistory = str(parentBody.contents).slice(0, -1);
      expect(str(fork.contents).startsWith(parentHistory)).toBe(true);
    }
    // The first fork came after the parent, so the cache served the parent's conversation.
    expect(run.report().perFork.every((f) => (f.cachedTokens ?? 0) > 0)).toBe(true);
  });
});

describe('parent-warm fan-out', () => {
  it('with parentWarm no fork waits for a warm-up, the first fork hits the parent, and the report counts what the parent sent', async () => {
    const session = unsortedSession('MARKER-W4RM');
    const parent = new GoogleGenAI({ vertexai: false, apiKey: 'parent-key', httpOptions: { baseUrl: server.url } });
    // The parent's own request: the conversation before its last reply.
    const sent = await parent.models.generateContent({
      model: session.model,
      contents: session.history.slice(0, -1) as never,
      config: {
        ...session.generationConfig,
        systemInstruction: session.systemInstruction as never,
        tools: session.tools as never,
        toolConfig: session.toolConfig as never,
      },
    });
    const parentPrompt = sent.usageMetadata?.promptTokenCount ?? 0;
    const run = engine.fanOut(
      engine.freeze(session),
      [
        { id: 'slow', directive: 'SLEEP 30000\nREPLY slow' },
        { id: 'quick', directive: 'REPLY quick' },
      ],
      { parentWarm: true },
    );
    const events = subscribeCancellingOnStart(run, 'slow');
    const results = await run.results();
    // Both were sent at once: the quick fork started before the slow one (cancelled on start) ended.
    expect(order(await events)).toEqual(['started slow', 'started quick', 'ended slow']);
    const report = run.report();
    expect(report.warmup).toBe('parent');
    const quick = results.find((r) => r.id === 'quick');
    const first = quick?.calls[0];
    // Its first call hit what the parent sent (in whole 64-token blocks)...
    expect(first?.cachedTokens).toBeGreaterThanOrEqual(parentPrompt - 64);
    // ...and that is its maximum: of the two sent at once, it is the one served least (the slow one made no call),
    // so it carries the opening maximum, the parent's share, not the siblings'.
    expect(report.perFork.find((f) => f.id === 'quick')?.theoreticalCachedTokens).toBe(first?.parentTokens);
    expect(first?.parentTokens).toBeLessThan(first?.sharedTokens ?? 0);
    expect(Math.abs((first?.parentTokens ?? 0) - parentPrompt) / parentPrompt).toBeLessThan(0.05);
  });

  it('under warm-up auto the sibling waits for the first fork, which counts as cold', async () => {
    const run = engine.fanOut(engine.freeze(unsortedSession('MARKER-C0LD')), [
      { id: 'slow', directive: 'SLEEP 30000\nREPLY slow' },
      { id: 'quick', directive: 'REPLY quick' },
    ]);
    const events = subscribeCancellingOnStart(run, 'slow');
    await run.results();
    // Nothing opened the gate until the slow fork ended (cancelled): only then did its sibling start.
    expect(order(await events)).toEqual(['started slow', 'ended slow', 'started quick']);
    const report = run.report();
    expect(report.warmup).toBe('auto');
    expect(report.perFork.find((f) => f.id === 'slow')?.theoreticalCachedTokens).toBe(0);
  });
});

/** Collects a run's events, cancelling fork `id` the moment it starts. */
async function subscribeCancellingOnStart(run: FanOutRun, id: string): Promise<ForkEvent[]> {
  const events: ForkEvent[] = [];
  for await (const e of run.events()) {
    events.push(e);
    if (e.type === 'task_started' && e.forkId === id) run.cancel(id);
  }
  return events;
}

const order = (events: readonly ForkEvent[]): string[] =>
  events.flatMap((e) =>
    e.type === 'task_started'
      ? [`started ${e.forkId}`]
      : e.type === 'task_notification' && e.forkId === 'slow'
        ? [`ended ${e.forkId}`]
        : [],
  );

describe('the headless parent loop shares its cache with its forks', () => {
  it('forks declare exactly the parent tools, agent included, and the first fork call hits the parent prefix', async () => {
    const session = unsortedSession('MARKER-9A9A');
    const start = server.requests.length;
    const turns: number[] = [];
    const outcome = await engine.runParentAgent(session, 'FORK RECALL MARKER-[0-9A-Z]{4}', {
      onEvent: (e) => {
        if (e.type === 'turn') turns.push(e.usage.promptTokens);
      },
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.text).toContain('MARKER-9A9A');
    const bodies = bodiesSince(start);
    const parentFirst = bodies[0] as WireBody;
    const forkFirst = bodies.find((b) => JSON.stringify(b.contents).includes('<fork-boilerplate>')) as WireBody;
    expect(JSON.stringify(forkFirst.tools)).toBe(JSON.stringify(parentFirst.tools));
    expect(JSON.stringify(forkFirst.systemInstruction)).toBe(JSON.stringify(parentFirst.systemInstruction));
    // Everything the parent sent in its first call (history and prompt) opens the fork's request.
    for (let i = 0; i < parentFirst.contents.length; i++) {
      expect(JSON.stringify(forkFirst.contents[i])).toBe(JSON.stringify(parentFirst.contents[i]));
    }
    const fork = outcome.forks[0];
    expect(fork?.calls[0]?.cachedTokens).toBeGreaterThanOrEqual((turns[0] ?? 0) - 64);
    expect((fork?.calls[0]?.cachedTokens ?? 0) / (turns[0] ?? 1)).toBeGreaterThanOrEqual(0.9);
  });

  it('a fork that calls agent is still refused when the call executes', async () => {
    const start = server.requests.length;
    const outcome = await engine.runParentAgent(
      unsortedSession('MARKER-NEST'),
      'CALL agent {"description":"f","prompt":"CALL agent {\\"description\\":\\"again\\",\\"prompt\\":\\"deeper\\",\\"subagent_type\\":\\"fork\\"}\\nREPLY did it myself","subagent_type":"fork"}\nREPLY waiting',
    );
    expect(outcome.forks.map((f) => [f.status, f.text])).toEqual([['completed', 'did it myself']]);
    expect(
      server.requests
        .slice(start)
        .map((r) => r.body)
        .join('\n'),
    ).toContain(JSON.stringify(NESTED_FORK_ERROR).slice(1, -1));
  });

  it('an omitted subagent_type starts a fresh general-purpose sub-agent: no history, the parent system instruction and tools', async () => {
    const session = unsortedSession('MARKER-GP00');
    const start = server.requests.length;
    const events: ParentEvent[] = [];
    const outcome = await engine.runParentAgent(
      session,
      'CALL agent {"description":"fresh","prompt":"RECALL MARKER-[0-9A-Z]{4}"}\nREPLY waiting',
      {
        onEvent: (e) => events.push(e),
      },
    );
    expect(outcome.status).toBe('completed');
    const started = events.find((e) => e.type === 'task_started');
    expect(started).toMatchObject({ type: 'task_started', subagentType: 'general-purpose', description: 'fresh' });
    expect(events.filter((e) => e.type === 'task_notification')).toHaveLength(1);
    const bodies = bodiesSince(start);
    const sub = bodies.find((b) => b.contents.length === 1) as WireBody;
    expect(sub.contents).toEqual([{ parts: [{ text: 'RECALL MARKER-[0-9A-Z]{4}' }], role: 'user' }]);
    expect(JSON.stringify(sub.tools)).toBe(JSON.stringify((bodies[0] as WireBody).tools));
    expect(JSON.stringify(sub.systemInstruction)).toBe(JSON.stringify((bodies[0] as WireBody).systemInstruction));
    // It inherited nothing, so the marker only in the history is out of its sight.
    expect(outcome.forks[0]?.text).toBe('RECALL MARKER-[0-9A-Z]{4}: no match');
  });

  it('a conversation that is itself a fork gets the reference answer at once: no task_started, no notification', async () => {
    const child = unsortedSession('MARKER-CH1D');
    child.history = [
      ...child.history,
      { role: 'user', parts: [{ text: buildChildMessage('earlier directive') }] },
      { role: 'model', parts: [{ text: 'ok' }] },
    ];
    const start = server.requests.length;
    const events: ParentEvent[] = [];
    // The scripted model reads the last "Directive:" it finds, so the prompt states one too.
    const outcome = await engine.runParentAgent(child, 'Directive: FORK REPLY nested\nREPLY gave up', { onEvent: (e) => events.push(e) });
    expect(outcome).toMatchObject({ status: 'completed', text: 'gave up', forks: [] });
    expect(events.filter((e) => e.type !== 'turn' && e.type !== 'message')).toEqual([]);
    expect(
      server.requests
        .slice(start)
        .map((r) => r.body)
        .join('\n'),
    ).toContain(JSON.stringify(NESTED_FORK_ERROR).slice(1, -1));
  });

  it('isolation and working_dir are not offered, and are refused by name when sent', async () => {
    const start = server.requests.length;
    const outcome = await engine.runParentAgent(
      unsortedSession('MARKER-1S0L'),
      'CALL agent {"description":"x","prompt":"y","isolation":"worktree","working_dir":"/tmp"}\nREPLY gave up',
    );
    expect(outcome).toMatchObject({ status: 'completed', forks: [] });
    const said = server.requests
      .slice(start)
      .map((r) => r.body)
      .join('\n');
    expect(said).toContain('isolation: is not supported');
    expect(said).toContain('working_dir: is not supported');
    expect(said).not.toContain('"isolation":{');
  });
});

describe('main-session-only tools', () => {
  it('stay declared to forks, are refused when a fork calls them, and run for the parent', async () => {
    const ran: string[] = [];
    const render = defineTool({
      name: 'render_image',
      description: 'Shows an image to the user.',
      parameters: z.object({ path: z.string() }),
      forks: false,
      execute: ({ path }) => {
        ran.push(path);
        return { shown: path };
      },
    });
    const local = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [render] });
    try {
      const session: GeminiSession = { ...unsortedSession('MARKER-1MG0'), tools: [{ functionDeclarations: [render.declaration] }] };
      const start = server.requests.length;
      const outcome = await local.runParentAgent(
        session,
        'CALL render_image {"path":"parent.png"}\nCALL@2 agent {"description":"f","prompt":"CALL render_image {\\"path\\":\\"fork.png\\"}\\nREPLY done","subagent_type":"fork"}\nREPLY all done',
      );
      expect(outcome.status).toBe('completed');
      expect(ran).toEqual(['parent.png']);
      const forkBody = bodiesSince(start).find((b) => JSON.stringify(b.contents).includes('<fork-boilerplate>')) as WireBody;
      expect(JSON.stringify(forkBody.tools)).toContain('"name":"render_image"');
      expect(
        server.requests
          .slice(start)
          .map((r) => r.body)
          .join('\n'),
      ).toContain('render_image can only be executed by the main session, not by a fork or sub-agent.');
    } finally {
      await local.close();
    }
  });
});
