// Internal: isTool (src/tools/load-module.ts), the structural check of a tool: loadToolsModule's refusals are its public face; defineTool and loadToolsModule come through forkpool.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, loadToolsModule } from '../src/index.js';
import { isTool } from '../src/tools/load-module.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tools');
const fixture = (name: string): string => path.join(fixtures, name);
const ctx = { forkId: 'fork-1', signal: new AbortController().signal };

describe('loadToolsModule', () => {
  it('loads a default array and named exports, counting a tool exported twice once', async () => {
    const tools = await loadToolsModule(fixture('good.mjs'));
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add']);
    const [echo, add] = tools;
    expect(echo?.declaration).toEqual({
      name: 'echo',
      description: 'Returns its text.',
      parametersJsonSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      },
    });
    expect(await echo?.execute({ text: 'hi' }, ctx)).toEqual({ text: 'hi' });
    expect(add?.approval).toBe('required');
    expect(await add?.execute({ a: 2, b: 3 }, ctx)).toEqual({ sum: 5 });
    expect(add?.parameters.safeParse({ a: 'x', b: 1 }).success).toBe(false);
  });

  it('accepts `export default tool`', async () => {
    const tools = await loadToolsModule(fixture('single-default.mjs'));
    expect(tools.map((t) => t.name)).toEqual(['shout']);
    expect(await tools[0]?.execute({ text: 'quiet' }, ctx)).toBe('QUIET');
  });

  it('loads a TypeScript module when the runtime can import .ts (vitest here)', async () => {
    const tools = await loadToolsModule(fixture('typed.ts'));
    expect(tools.map((t) => t.name)).toEqual(['count_chars']);
    expect(await tools[0]?.execute({ text: 'abcd' }, ctx)).toBe(4);
  });

  it('resolves a relative path against the working directory', async () => {
    const rel = path.relative(process.cwd(), fixture('single-default.mjs'));
    expect((await loadToolsModule(rel)).map((t) => t.name)).toEqual(['shout']);
  });

  it('refuses a module that exports no tools', async () => {
    await expect(loadToolsModule(fixture('no-tools.mjs'))).rejects.toThrow(
      /tools module ".*no-tools\.mjs": exports no tools; use export default \[tool, \.\.\.\]/,
    );
  });

  it('refuses a default array holding something not made by defineTool, naming its index', async () => {
    await expect(loadToolsModule(fixture('non-tool-default.mjs'))).rejects.toThrow(
      /non-tool-default\.mjs": export default\[1\] is not a tool made by defineTool \(got an object named "handmade"\)/,
    );
  });

  it('refuses a named export that looks like a hand-made tool, naming the export', async () => {
    await expect(loadToolsModule(fixture('non-tool-named.mjs'))).rejects.toThrow(
      /non-tool-named\.mjs": export "fetcher" is not a tool made by defineTool/,
    );
  });

  it('refuses two tools with one name, naming both exports', async () => {
    await expect(loadToolsModule(fixture('duplicates.mjs'))).rejects.toThrow(
      /duplicates\.mjs": duplicate tool name "search" \(exports first and second\)/,
    );
  });

  it('names the file when it does not exist', async () => {
    const missing = fixture('does-not-exist.mjs');
    await expect(loadToolsModule(missing)).rejects.toThrow(`tools module ${JSON.stringify(missing)}: file not found`);
  });

  it('names the file when it is a directory', async () => {
    await expect(loadToolsModule(fixtures)).rejects.toThrow(`tools module ${JSON.stringify(fixtures)}: not a file`);
  });

  it('names the file and the cause when importing throws', async () => {
    const err = await loadToolsModule(fixture('throws.mjs')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/throws\.mjs": import failed: boom at import time/);
    expect(((err as Error).cause as Error).message).toBe('boom at import time');
  });

  it('names the file when the module does not parse', async () => {
    await expect(loadToolsModule(fixture('syntax-error.mjs'))).rejects.toThrow(/syntax-error\.mjs": import failed: /);
  });

  describe('with a temporary empty module', () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'forkpool-mod-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    it('refuses an empty file as exporting no tools', async () => {
      const file = path.join(dir, 'empty.mjs');
      await import('node:fs/promises').then((fs) => fs.writeFile(file, ''));
      await expect(loadToolsModule(file)).rejects.toThrow(`tools module ${JSON.stringify(file)}: exports no tools`);
    });
  });
});

describe('isTool', () => {
  it('accepts what defineTool makes and rejects look-alikes', () => {
    const tool = defineTool({ name: 't', description: 'd', parameters: z.object({}), execute: () => 1 });
    expect(isTool(tool)).toBe(true);
    expect(isTool({ ...tool })).toBe(true);
    expect(isTool(null)).toBe(false);
    expect(isTool('t')).toBe(false);
    expect(isTool({ name: 't', description: 'd', execute: () => 1 })).toBe(false);
    expect(isTool({ ...tool, parameters: { type: 'object' } })).toBe(false);
    expect(isTool({ ...tool, declaration: { ...tool.declaration, name: 'other' } })).toBe(false);
    expect(isTool({ ...tool, execute: 'run' })).toBe(false);
  });
});
