import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadToolsModule } from '../src/index.js';

/*
 * Hostile tools modules (test/fixtures/hostile/tools): whatever a module throws or exports, the
 * loader ends with a tool list or an Error whose message starts with `tools module "<file>": `.
 */

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hostile', 'tools');
const fixture = (name: string): string => path.join(dir, name);
const where = (name: string): string => `tools module ${JSON.stringify(fixture(name))}: `;
const ctx = { forkId: 'f', signal: new AbortController().signal };

async function failureOf(name: string, options?: { importTimeoutMs?: number }): Promise<Error> {
  const outcome = await loadToolsModule(fixture(name), options).then(
    (tools) => new Error(`expected a failure, loaded ${tools.length} tools`),
    (err: unknown) => err,
  );
  if (!(outcome instanceof Error) || outcome.message.startsWith('expected a failure')) throw outcome;
  return outcome;
}

describe('tools module: imports that throw odd things', () => {
  it('a thrown string', async () => {
    const err = await failureOf('throws-string.mjs');
    expect(err.message).toBe(`${where('throws-string.mjs')}import failed: not an Error object`);
    expect(err.cause).toBe('not an Error object');
  });

  it('a thrown object without a prototype (String() of it throws)', async () => {
    const err = await failureOf('throws-null-proto.mjs');
    expect(err.message).toBe(`${where('throws-null-proto.mjs')}import failed: a thrown object that cannot be printed`);
  });

  it('a thrown object whose toString throws', async () => {
    const err = await failureOf('throws-hostile-tostring.mjs');
    expect(err.message).toBe(`${where('throws-hostile-tostring.mjs')}import failed: a thrown object that cannot be printed`);
  });

  it('a top-level await that never settles is bounded, not a hang or a silent exit', async () => {
    const err = await failureOf('tla-never.mjs', { importTimeoutMs: 200 });
    expect(err.message).toBe(`${where('tla-never.mjs')}import did not finish within 200 ms (a top-level await that never settles?)`);
  });
});

describe('tools module: exports that throw when read', () => {
  it('a getter that throws on an entry of the default array names that entry', async () => {
    const err = await failureOf('getter-default.mjs');
    expect(err.message).toBe(`${where('getter-default.mjs')}export default[1] cannot be inspected (reading it threw: getter boom)`);
    expect((err.cause as Error).message).toBe('getter boom');
  });

  it('a named export whose execute getter throws names the export', async () => {
    const err = await failureOf('getter-named.mjs');
    expect(err.message).toBe(`${where('getter-named.mjs')}export "sneaky" cannot be inspected (reading it threw: execute getter boom)`);
  });

  it('a Proxy whose traps throw', async () => {
    const err = await failureOf('proxy-default.mjs');
    expect(err.message).toBe(`${where('proxy-default.mjs')}export default cannot be inspected (reading it threw: proxy trap boom)`);
  });

  it('a revoked Proxy (Array.isArray itself throws)', async () => {
    const err = await failureOf('proxy-revoked.mjs');
    expect(err.message).toBe(
      `${where('proxy-revoked.mjs')}export default cannot be inspected (reading it threw: Cannot perform 'IsArray' on a proxy that has been revoked)`,
    );
  });

  it('a transparent Proxy around a real tool is a tool, and runs', async () => {
    const tools = await loadToolsModule(fixture('proxy-transparent.mjs'));
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    expect(await tools[0]?.execute({ text: 'through the proxy' }, ctx)).toBe('through the proxy');
  });

  it('a default object with an own __proto__ key is not a tool, and pollutes nothing', async () => {
    const err = await failureOf('pollute.mjs');
    expect(err.message).toBe(`${where('pollute.mjs')}export default is not a tool made by defineTool (got an object)`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('tools module: tool names that are not function names', () => {
  const RULE = 'is not a valid function name (it must start with a letter or underscore and hold at most 64 letters, digits, _ . -)';

  it('a hand-made named export with a space in its name', async () => {
    expect((await failureOf('bad-names.mjs')).message).toBe(`${where('bad-names.mjs')}export "spaced": tool name "read file" ${RULE}`);
  });

  it('a hand-made default entry starting with a digit names its index', async () => {
    expect((await failureOf('bad-name-default.mjs')).message).toBe(
      `${where('bad-name-default.mjs')}export default[1]: tool name "1starts_with_digit" ${RULE}`,
    );
  });

  it('an empty name', async () => {
    expect((await failureOf('bad-name-empty.mjs')).message).toBe(`${where('bad-name-empty.mjs')}export default: tool name "" ${RULE}`);
  });

  it('a 5,000-character name is shortened in the message', async () => {
    const err = await failureOf('bad-name-long.mjs');
    expect(err.message).toBe(`${where('bad-name-long.mjs')}export default: tool name "${'a'.repeat(80)}…" ${RULE}`);
  });

  it('defineTool refusing a name at import time is reported as an import failure', async () => {
    expect((await failureOf('define-bad-name.mjs')).message).toBe(
      `${where('define-bad-name.mjs')}import failed: defineTool: name "rm -rf /" must start with a letter or underscore and hold at most 64 letters, digits, _ . -`,
    );
  });
});

describe('tools module: zod schemas and JSON Schema', () => {
  it('a z.function() parameter cannot be declared: the module and the reason are named', async () => {
    expect((await failureOf('zod-function.mjs')).message).toBe(
      `${where('zod-function.mjs')}import failed: defineTool "callback": parameters cannot be declared as JSON Schema: Function types cannot be represented in JSON Schema`,
    );
  });

  it('a z.date() parameter cannot be declared either', async () => {
    expect((await failureOf('zod-date.mjs')).message).toBe(
      `${where('zod-date.mjs')}import failed: defineTool "when": parameters cannot be declared as JSON Schema: Date cannot be represented in JSON Schema`,
    );
  });

  it('a transform is declared by its input and executed with its output', async () => {
    const [tool] = await loadToolsModule(fixture('zod-transform.mjs'));
    expect(tool?.declaration.parametersJsonSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'string' } },
      required: ['n'],
    });
    const parsed = tool?.parameters.safeParse({ n: 'four' });
    expect(parsed?.success).toBe(true);
    expect(await tool?.execute(parsed?.data, ctx)).toEqual({ type: 'number', n: 4 });
  });
});
