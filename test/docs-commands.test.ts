import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/redis.js';
import { docsWithExamples } from './support/docs-examples.js';
import {
  commandBlocksOf,
  commandsDir,
  type OutputSample,
  outputMatches,
  printedLines,
  runBlock,
  scriptOf,
  updateSamples,
} from './support/docs-commands.js';

/*
 * Every shell command of the README and docs/ runs offline against the built CLI (`npm test` builds
 * dist first), in the order the document gives them, and exits 0; each sample output after a command
 * is what it prints now (the rules are in test/support/docs-commands.ts). A block that cannot run
 * here says why. A failure names the document and line.
 */

const docs = docsWithExamples().map((doc) => ({ doc, blocks: commandBlocksOf(doc) }));
const UPDATE = process.env.FORKPOOL_DOCS_UPDATE === '1';
const BLOCK_TIMEOUT_MS = 120_000;

describe('a sample output', () => {
  const sample = (lines: string[], exact = false, except: string[] = []): OutputSample => ({
    firstLine: 1,
    lastLine: lines.length,
    lines,
    exact,
    except,
  });
  const printed = ['fork   status     prompt', 'a      completed  14,291', 'time   6.53 s · 1.2 forks/s'];

  it('matches by its lines and columns: any figures, any spacing, the same words', () => {
    expect(outputMatches(sample(['fork status prompt', 'a completed 9', 'time 1 s · 2 forks/s']), printed)).toBe(true);
    expect(outputMatches(sample(['fork status prompt', 'a failed 9', 'time 1 s · 2 forks/s']), printed)).toBe(false);
    expect(outputMatches(sample(['fork status prompt', 'a completed 9']), printed)).toBe(false);
  });

  it('stands for any lines with …, and compares exactly after its marker, but for the lines it names', () => {
    expect(outputMatches(sample(['…', 'time 1 s · 2 forks/s']), printed)).toBe(true);
    expect(outputMatches(sample([...printed.slice(0, 2), 'time 1 s · 2 forks/s'], true, ['time']), printed)).toBe(true);
    expect(
      outputMatches(sample(['fork   status     prompt', 'a      completed  14,292', printed[2] as string], true, ['time']), printed),
    ).toBe(false);
  });
});

describe("the docs' shell commands", () => {
  it('are found, and each one that does not run says why', () => {
    const blocks = docs.flatMap((d) => d.blocks);
    expect(blocks.filter((b) => b.run).length).toBeGreaterThan(0);
    for (const block of blocks) if (!block.run) expect(block.reason, block.at).toBeTruthy();
  });

  for (const { doc, blocks } of docs.filter((d) => d.blocks.some((b) => b.run))) {
    describe(doc, () => {
      let dirs: { dir: string; bin: string } | undefined;
      const updates: { output: OutputSample; printed: string[] }[] = [];
      beforeAll(() => {
        dirs = commandsDir();
      });
      afterAll(() => {
        if (UPDATE && updates.length > 0) updateSamples(doc, updates);
        if (dirs) for (const path of [dirs.dir, dirs.bin]) rmSync(path, { recursive: true, force: true });
      });

      it.each(blocks.filter((b) => b.run).map((b) => [b.at, b] as const))(
        '%s runs as written',
        async (_at, block) => {
          const ports = [await freePort(), await freePort()];
          if (!dirs) throw new Error('no temp dir: beforeAll did not run');
          const run = await runBlock(scriptOf(block, ports), dirs.dir, dirs.bin, BLOCK_TIMEOUT_MS);
          expect({ at: block.at, code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ at: block.at, code: 0, stderr: '' });
          if (!block.output) return;
          const printed = printedLines(run, ports);
          if (UPDATE) updates.push({ output: block.output, printed });
          else if (!outputMatches(block.output, printed)) {
            expect({ at: block.at, printed: printed.join('\n') }).toEqual({ at: block.at, printed: block.output.lines.join('\n') });
          }
        },
        BLOCK_TIMEOUT_MS + 10_000,
      );
    });
  }
});
