import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ForkEngine, loadSession } from '../src/index.js';
import { REPO_ROOT } from './fixtures/cli/run-cli.js';
import { blockAfter, runExample } from './support/example.js';

/*
 * The README's library example is examples/library.ts, shown verbatim, and it runs as written (the
 * package imported by its name, as a user's code imports it; `npm test` builds dist first): its
 * tool is declared by the session it loads, and really called.
 */

const EXAMPLE = 'examples/library.ts';

describe("the README's library example", () => {
  it('is examples/library.ts, word for word', () => {
    expect(blockAfter('README.md', '## The library in a few lines')).toBe(readFileSync(`${REPO_ROOT}${EXAMPLE}`, 'utf8'));
  });

  it('runs as written: each fork calls the lookup tool, which executes, and completes; nothing warns', async () => {
    const run = await runExample(EXAMPLE);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => l.includes(' lookup '))).toEqual(['a lookup ok', 'b lookup ok']);
    expect(run.stdout).toMatch(/^a completed Scope: What does the cache note say\?\nResult: 1 tool result\(s\) from lookup/m);
    expect(run.stdout).toMatch(/^b completed Scope: What does the cli note say\?\nResult: 1 tool result\(s\) from lookup/m);
  });

  it("its session declares exactly the tool's own declaration", async () => {
    const session = await loadSession(`${REPO_ROOT}examples/notes-session.json`);
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a note up',
      parameters: z.object({ key: z.string() }),
      execute: () => null,
    });
    expect('tools' in session && session.tools).toEqual([{ functionDeclarations: [lookup.declaration] }]);
  });
});

describe('a tool given to the engine that the session does not declare', () => {
  it('is named in one process warning per tool (FORKPOOL_UNDECLARED_TOOL), and a call of it is refused', async () => {
    const executed: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look a note up',
      parameters: z.object({ key: z.string() }),
      execute: ({ key }) => {
        executed.push(key);
        return { value: null };
      },
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void =>
      void ((warning as { code?: string }).code === 'FORKPOOL_UNDECLARED_TOOL' && warnings.push(warning));
    process.on('warning', onWarning);
    const engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1, tools: [lookup] });
    try {
      // examples/session.json declares the workspace tools, not lookup.
      const prefix = engine.freeze(await loadSession(`${REPO_ROOT}examples/session.json`));
      const first = engine.fanOut(prefix, [{ id: 'a', directive: 'CALL lookup {"key":"cache"}' }]);
      const toolCalls: string[] = [];
      for await (const event of first.events()) if (event.type === 'tool_call') toolCalls.push(`${event.tool} ${event.status}`);
      await engine.fanOut(prefix, [{ id: 'b', directive: 'REPLY b' }]).settled();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.message)).toEqual([
        `forkpool: the session does not declare the tool "lookup" given to the engine, so the model can never call it: add its declaration to the session's tools (tool.declaration holds it in Gemini's shape)`,
      ]);
      expect(toolCalls).toEqual(['lookup rejected']);
      expect(executed).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await engine.close();
    }
  });
});
