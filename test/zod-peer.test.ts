import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The user's own zod: another copy (and version) than forkpool's, as an application would have.
import { z as userZod } from 'zod-user';
import { z as ourZod } from 'zod';
import { ForkEngine, defineTool } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { parentSession } from './support/engine-fixtures.js';

/* zod is a peer dependency: tools defined with the application's own zod instance work end to end. */

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

describe("a tool made with the user's own zod", () => {
  const seen: string[] = [];
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a key up.',
    // Two zods are installed here: the user's (4.1, as zod-user) and the dev copy forkpool's types
    // resolve (4.6), whose ZodType has members 4.1's lacks. In a project zod is a peer, installed
    // once, and forkpool's types resolve the project's own; here the schema is cast, and what this
    // file checks is that it works at run time.
    parameters: userZod.object({ key: userZod.string().min(2) }) as unknown as ourZod.ZodType<{ key: string }>,
    execute: ({ key }) => {
      seen.push(key);
      return { value: key.toUpperCase() };
    },
  });

  it('is another zod instance than forkpool’s', () => {
    expect(userZod).not.toBe(ourZod);
    expect(userZod.ZodObject).not.toBe(ourZod.ZodObject);
  });

  it('is declared from its own schema, validated by it, and executed', async () => {
    expect(lookup.declaration.parametersJsonSchema).toMatchObject({
      type: 'object',
      properties: { key: { type: 'string', minLength: 2 } },
      required: ['key'],
    });
    const engine = await ForkEngine.create({ provider: { kind: 'local', url: server.url }, threads: 1, tools: [lookup] });
    try {
      const start = server.requests.length;
      const [result] = await engine
        .fanOut(engine.freeze(parentSession([lookup], { words: 10 })), [
          { id: 'u', directive: 'CALL lookup {"key":"x"}\nCALL@2 lookup {"key":"ok"}\nREPLY done' },
        ])
        .results();
      expect(result?.status).toBe('completed');
      expect(seen).toEqual(['ok']);
      const said = server.requests
        .slice(start)
        .map((r) => r.body)
        .join('\n');
      expect(said).toMatch(/Invalid arguments for lookup: key: Too small/);
      expect(said).toContain('"output":{"value":"OK"}');
    } finally {
      await engine.close();
    }
  });
});
