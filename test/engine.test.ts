// Internal: FORK_PLACEHOLDER_TEXT and NESTED_FORK_ERROR: the fork's fixed wording (src/wording/constants.ts) has no entry point; everything else comes through forkpool and forkpool/local-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkEvent, type GeminiSession } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { FORK_PLACEHOLDER_TEXT, NESTED_FORK_ERROR } from '../src/fork/index.js';
import { parentSession, testTools, type ToolLog } from './support/engine-fixtures.js';

let server: LocalServer;
let engine: ForkEngine;
const log: ToolLog = { calls: [] };
const tools = testTools(log);

beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 2, tools });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

function bodiesFrom(start: number): { contents: { role: string; parts: Record<string, unknown>[] }[]; [k: string]: unknown }[] {
  return server.requests
    .slice(start)
    .filter((r) => r.route === 'streamGenerateContent')
    .map((r) => JSON.parse(r.body));
}

function countBy(events: ForkEvent[], type: ForkEvent['type']): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events) if (e.type === type) counts.set(e.forkId, (counts.get(e.forkId) ?? 0) + 1);
  return counts;
}

describe('forks inherit the parent conversation', () => {
  it('8 forks recall a marker that only the parent history holds', async () => {
    const prefix = engine.freeze(parentSession(tools, { marker: 'MARKER-8151' }));
    const tasks = Array.from({ length: 8 }, (_, i) => ({ id: `m${i}`, directive: `Find the marker.\nRECALL MARKER-\\d{4}` }));
    for (const t of tasks) expect(t.directive).not.toContain('8151');
    const results = await engine.fanOut(prefix, tasks).results();
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('completed'));
    for (const r of results) expect(r.text).toContain('MARKER-8151');
  });

  it("seed 'completed-turns' keeps a completed turn's marker and drops the in-flight turn's", async () => {
    const base = parentSession(tools, { marker: 'MARKER-1111' });
    const session: GeminiSession = {
      ...base,
      history: [
        ...base.history,
        { role: 'user', parts: [{ text: 'Now check MARKER-2222 with the tool.' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'lookup', args: { key: 'x' } } }] },
      ],
    };
    const prefix = engine.freeze(session);
    const [completed] = await engine
      .fanOut(prefix, [{ id: 'ct', directive: 'RECALL MARKER-\\d{4}', history: 'completed-turns' }])
      .results();
    expect(completed?.text).toContain('MARKER-1111');
    expect(completed?.text).not.toContain('MARKER-2222');
    const [inherit] = await engine.fanOut(prefix, [{ id: 'in', directive: 'RECALL MARKER-\\d{4}' }]).results();
    expect(inherit?.text).toContain('MARKER-1111');
    expect(inherit?.text).toContain('MARKER-2222');
  });
});

describe('requests of sibling forks', () => {
  it('share the prefix byte for byte, and mid-turn siblings never see each other’s directives', async () => {
    const base = parentSession(tools);
    const session: GeminiSession = {
      ...base,
      history: [
        ...base.history,
        { role: 'user', parts: [{ text: 'Split the work.' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: {
                id: 'a1',
                name: 'agent',
                args: { description: 'one', prompt: 'SECRET-DIRECTIVE-ONE', subagent_type: 'fork' },
              },
            },
            {
              functionCall: {
                id: 'a2',
                name: 'agent',
                args: { description: 'two', prompt: 'SECRET-DIRECTIVE-TWO', subagent_type: 'fork' },
              },
            },
          ],
        },
      ],
    };
    const start = server.requests.length;
    const results = await engine
      .fanOut(engine.freeze(session), [
        { id: 'one', directive: 'SECRET-DIRECTIVE-ONE\nREPLY one done' },
        { id: 'two', directive: 'SECRET-DIRECTIVE-TWO\nREPLY two done' },
      ])
      .results();
    expect(results.map((r) => r.text)).toEqual(['one done', 'two done']);
    const bodies = bodiesFrom(start);
    expect(bodies).toHaveLength(2);
    const [a, b] = bodies as [(typeof bodies)[number], (typeof bodies)[number]];
    for (const key of ['systemInstruction', 'tools', 'generationConfig']) {
      expect(JSON.stringify(a[key])).toBe(JSON.stringify(b[key]));
    }
    // Everything up to the placeholder-and-child message is the same bytes.
    const shared = session.history.length;
    expect(JSON.stringify(a.contents.slice(0, shared))).toBe(JSON.stringify(b.contents.slice(0, shared)));
    const redacted = a.contents[shared - 1];
    expect(redacted?.parts.map((p) => (p.functionCall as { args: unknown }).args)).toEqual([{}, {}]);
    const one = JSON.stringify(a);
    const two = JSON.stringify(b);
    expect(one).toContain('SECRET-DIRECTIVE-ONE');
    expect(one).not.toContain('SECRET-DIRECTIVE-TWO');
    expect(two).toContain('SECRET-DIRECTIVE-TWO');
    expect(two).not.toContain('SECRET-DIRECTIVE-ONE');
    expect(one).toContain(FORK_PLACEHOLDER_TEXT);
  });
});

describe('tools', () => {
  it('run on the main thread with validated args while the loop runs in worker threads', async () => {
    log.calls.length = 0;
    const prefix = engine.freeze(parentSession(tools));
    const [result] = await engine.fanOut(prefix, [{ id: 't', directive: 'CALL lookup {"key":"alpha"}\nREPLY looked up' }]).results();
    expect(result?.status).toBe('completed');
    expect(result?.toolCalls).toBe(1);
    expect(log.calls).toEqual([{ tool: 'lookup', args: { key: 'alpha' }, threadId: 0, mainThread: true }]);
    expect(result?.worker.threadId).toBeGreaterThan(0);
  });

  it('turn bad args, a thrown error, a disallowed, an approval-required and an agent call into errors the fork survives', async () => {
    log.calls.length = 0;
    const start = server.requests.length;
    const prefix = engine.freeze(parentSession(tools));
    const run = engine.fanOut(prefix, [
      { id: 'bad-args', directive: 'CALL lookup {"key":""}\nCALL@2 lookup {"key":"fixed"}\nREPLY recovered' },
      { id: 'throws', directive: 'CALL explode {}\nREPLY survived' },
      { id: 'not-allowed', directive: 'CALL lookup {"key":"k"}\nREPLY denied', tools: ['explode'] },
      { id: 'approval', directive: 'CALL deploy {"target":"prod"}\nREPLY not deployed' },
      { id: 'spawn', directive: 'CALL agent {"description":"x","prompt":"y","subagent_type":"fork"}\nREPLY no nesting' },
      { id: 'undeclared', directive: 'CALL rm_rf {"path":"/"}\nREPLY refused' },
    ]);
    const events: ForkEvent[] = [];
    for await (const e of run.events()) events.push(e);
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status, r.text])).toEqual([
      ['bad-args', 'completed', 'recovered'],
      ['throws', 'completed', 'survived'],
      ['not-allowed', 'completed', 'denied'],
      ['approval', 'completed', 'not deployed'],
      ['spawn', 'completed', 'no nesting'],
      ['undeclared', 'completed', 'refused'],
    ]);
    const toolEvents = events.flatMap((e) => (e.type === 'tool_call' ? [[e.forkId, e.tool, e.status, e.error?.kind ?? null]] : []));
    expect(toolEvents).toEqual(
      expect.arrayContaining([
        ['bad-args', 'lookup', 'rejected', 'invalid_args'],
        ['bad-args', 'lookup', 'ok', null],
        ['throws', 'explode', 'failed', 'threw'],
        ['not-allowed', 'lookup', 'rejected', 'not_allowed'],
        ['approval', 'deploy', 'rejected', 'approval_required'],
        ['spawn', 'agent', 'rejected', 'spawn_refused'],
        ['undeclared', 'rm_rf', 'rejected', 'not_declared'],
      ]),
    );
    // Only the valid lookup and the throwing tool ever executed; nothing was deployed.
    expect(log.calls.map((c) => c.tool).sort()).toEqual(['explode', 'lookup']);
    // What the model was told, as the server received it.
    const responses = bodiesFrom(start)
      .flatMap((b) => b.contents.flatMap((c) => c.parts))
      .flatMap((p) => (p.functionResponse ? [JSON.stringify(p.functionResponse)] : []));
    const said = responses.join('\n');
    expect(said).toMatch(/Invalid arguments for lookup: key: /);
    expect(said).toContain('explode failed: kaboom from the tool');
    expect(said).toMatch(/Tool lookup is not allowed in this fork\. Tools you may call: explode\./);
    expect(said).toMatch(/deploy needs a person's approval, and background agents cannot prompt/);
    expect(said).toContain(JSON.stringify(NESTED_FORK_ERROR).slice(1, -1));
    expect(said).toMatch(/Tool rm_rf is not declared\./);
  });
});

describe('lifecycle', () => {
  it('cancels one fork mid-call with its partial state, lets the others finish, and emits one start and one end per fork', async () => {
    const prefix = engine.freeze(parentSession(tools));
    // The slow fork is not first: with warm-up, siblings wait for the first fork's response.
    const run = engine.fanOut(prefix, [
      { id: 'fast-1', directive: 'REPLY one' },
      { id: 'slow', directive: 'SLEEP 30000\nREPLY never' },
      { id: 'fast-2', directive: 'REPLY two' },
    ]);
    const events: ForkEvent[] = [];
    for await (const e of run.events()) {
      events.push(e);
      if (e.type === 'task_notification' && e.forkId === 'fast-2') run.cancel('slow');
    }
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['fast-1', 'completed'],
      ['slow', 'cancelled'],
      ['fast-2', 'completed'],
    ]);
    expect(results[1]?.status === 'cancelled' && results[1].error.message).toBe('the fork was cancelled');
    expect([...countBy(events, 'task_started').values()]).toEqual([1, 1, 1]);
    expect([...countBy(events, 'task_notification').values()]).toEqual([1, 1, 1]);
    expect(run.report().forks).toMatchObject({ completed: 2, cancelled: 1, failed: 0 });
  });

  it('cancelAll ends queued and running forks, exactly once each, also when cancel races completion', async () => {
    const small = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, concurrency: 2, warmup: 'none' });
    try {
      const prefix = small.freeze(parentSession(tools));
      const tasks = [
        { id: 'r1', directive: 'REPLY quick' },
        { id: 'r2', directive: 'SLEEP 30000' },
        ...Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, directive: 'REPLY queued' })),
      ];
      const run = small.fanOut(prefix, tasks);
      const events: ForkEvent[] = [];
      for await (const e of run.events()) {
        events.push(e);
        // Cancel the moment the first fork reports its turn: r1 is completing, r2 sleeps, q* wait.
        if (e.type === 'turn' && e.forkId === 'r1') run.cancelAll();
      }
      const results = await run.results();
      const status = Object.fromEntries(results.map((r) => [r.id, r.status]));
      expect(status.r2).toBe('cancelled');
      expect(['completed', 'cancelled']).toContain(status.r1);
      for (const id of ['q0', 'q1', 'q2', 'q3']) expect(['completed', 'cancelled']).toContain(status[id]);
      expect(results.filter((r) => r.status === 'cancelled').length).toBeGreaterThanOrEqual(1);
      for (const id of tasks.map((t) => t.id)) {
        expect(countBy(events, 'task_started').get(id)).toBe(1);
        expect(countBy(events, 'task_notification').get(id)).toBe(1);
      }
    } finally {
      await small.close();
    }
  });

  it('fails a fork on its timeout and on maxTurns, with named reasons', async () => {
    // The timeout's own engine: under a loaded machine a 300 ms bound could also cut the maxTurns forks short.
    const timed = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, timeoutMs: 300, tools });
    const bounded = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, maxTurns: 2, tools }).catch(
      async (err: unknown) => {
        await timed.close();
        throw err;
      },
    );
    try {
      const [sleepy] = await timed
        .fanOut(timed.freeze(parentSession(tools)), [{ id: 'sleepy', directive: 'SLEEP 20000\nREPLY late' }])
        .results();
      const results = await bounded
        .fanOut(bounded.freeze(parentSession(tools)), [
          { id: 'loops', directive: 'CALL lookup {"key":"a"}\nCALL@2 lookup {"key":"b"}\nCALL@3 lookup {"key":"c"}\nREPLY end' },
          { id: 'own-limit', directive: 'CALL lookup {"key":"a"}\nREPLY end', maxTurns: 1 },
        ])
        .results();
      expect([sleepy, ...results].map((r) => [r?.id, r?.status, r?.status !== 'completed' ? r?.error.kind : null])).toEqual([
        ['sleepy', 'failed', 'timeout'],
        ['loops', 'failed', 'max_turns'],
        ['own-limit', 'failed', 'max_turns'],
      ]);
      expect(results[0]?.turns).toBe(2);
    } finally {
      await Promise.all([timed.close(), bounded.close()]);
    }
  });

  it('validates structured output against the task schema, with one repair turn', async () => {
    const prefix = engine.freeze(parentSession(tools));
    const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    const results = await engine
      .fanOut(prefix, [
        { id: 'good', directive: 'JSON {"count": 3}', outputSchema: schema },
        { id: 'bad', directive: 'JSON {"count": "three"}', outputSchema: schema },
      ])
      .results();
    expect(results[0]).toMatchObject({ status: 'completed', output: { count: 3 } });
    expect(results[1]).toMatchObject({ status: 'failed', error: { kind: 'output_schema' }, turns: 2 });
  });

  it('rejects forking a conversation that is itself a fork child', async () => {
    const base = parentSession(tools);
    const child: GeminiSession = {
      ...base,
      history: [
        { role: 'user', parts: [{ text: '<fork-boilerplate>\nrules\n</fork-boilerplate>\nDirective: x' }] },
        ...base.history.slice(1),
      ],
    };
    const [result] = await engine.fanOut(engine.freeze(child), [{ id: 'nested', directive: 'REPLY no' }]).results();
    expect(result).toMatchObject({ status: 'failed', error: { kind: 'rejected' } });
  });
});
