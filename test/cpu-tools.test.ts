import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine, defineTool, loadToolsModule, type ParentSession, type Tool } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { filler } from './support/engine-fixtures.js';

/*
 * `cpu: true` tools run in a thread of their own, which their timeout ends. A catastrophic regular
 * expression (^(a+)+$ on 36 characters: minutes of backtracking) answers the model with a timeout
 * within the tool's bound, while another fork's tool calls keep being answered on the main thread.
 */

let server: LocalServer;
let engine: ForkEngine;
let cpuTools: Tool[];
const lookups: string[] = [];
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => {
    lookups.push(key);
    return { value: key.toUpperCase() };
  },
});

beforeAll(async () => {
  cpuTools = await loadToolsModule('test/fixtures/tools/cpu.ts');
  server = await startLocalServer({ captureRequests: true });
  engine = await ForkEngine.create({
    provider: { kind: 'local', url: server.url },
    threads: 2,
    tools: [...cpuTools, lookup],
    warmup: 'none',
  });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

function session(): ParentSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: `Tool user. ${filler(50)}` }] },
    tools: [{ functionDeclarations: [...cpuTools, lookup].map((t) => t.declaration) }],
    history: [],
  };
}

describe('cpu tools', () => {
  it('loadToolsModule gives a cpu tool its module, so a thread can load it', () => {
    const backtrack = cpuTools.find((t) => t.name === 'backtrack');
    expect(backtrack?.cpu).toBe(true);
    expect(backtrack?.module).toMatch(/^file:.*test\/fixtures\/tools\/cpu\.ts$/);
  });

  it('a catastrophic regex times out within its bound while another fork keeps calling tools', async () => {
    lookups.length = 0;
    const start = server.requests.length;
    const stuck = 'CALL backtrack {"pattern":"^(a+)+$","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}\nREPLY gave up on the regex';
    const busy = ['CALL lookup {"key":"one"}', 'CALL@2 lookup {"key":"two"}', 'CALL@3 lookup {"key":"three"}', 'REPLY looked up'].join(
      '\n',
    );
    const run = engine.fanOut(engine.freeze(session()), [
      { id: 'stuck', directive: stuck },
      { id: 'busy', directive: busy },
    ]);
    const order: string[] = [];
    run.onResult((r) => order.push(r.id));
    const results = await run.results();
    expect(results.map((r) => [r.id, r.status, r.text])).toEqual([
      ['stuck', 'completed', 'gave up on the regex'],
      ['busy', 'completed', 'looked up'],
    ]);
    // The busy fork's three calls were answered while the regex ran: it finished first.
    expect(order).toEqual(['busy', 'stuck']);
    expect(lookups).toEqual(['one', 'two', 'three']);
    const said = server.requests
      .slice(start)
      .map((r) => r.body)
      .join('\n');
    expect(said).toContain('backtrack did not finish within 3000 ms; its thread was stopped.');
  });

  it('a quick cpu tool answers from its thread, with the fork id in its context', async () => {
    const [result] = await engine
      .fanOut(engine.freeze(session()), [{ id: 'sq', directive: 'CALL square {"n":12}\nREPLY squared' }])
      .results();
    expect(result?.status).toBe('completed');
    const said = server.requests.map((r) => r.body).join('\n');
    expect(said).toContain('"output":{"square":144,"forkId":"sq"}');
  });

  it('a cpu tool without a module is refused when the engine is made, naming the fix', async () => {
    const orphan = defineTool({ name: 'orphan', description: 'x', parameters: z.object({}), cpu: true, execute: () => 1 });
    await expect(ForkEngine.create({ provider: { kind: 'local', url: server.url }, tools: [orphan] })).rejects.toThrow(
      'tool "orphan" is cpu: true but names no module: pass module: import.meta.url to defineTool, or load it with loadToolsModule',
    );
  });
});
