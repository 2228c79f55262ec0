import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from './support/example.js';
import { docsWithExamples, examplesOf, typeErrorsOfExamples, userProject } from './support/docs-examples.js';

/*
 * Every TypeScript example of the README and docs/ compiles in a strict project of a user's own
 * against the built package (`npm test` builds dist first), in one tsc program; each one not marked
 * types-only then runs there as written, offline (they start forkpool's simulator themselves), and
 * must exit 0 with nothing on stderr. A failure names the example's file and line.
 */

const project = userProject();
const examples = docsWithExamples().flatMap((doc) => examplesOf(doc, project));
const checked = examples.filter((e) => e.mode !== 'skip');
const runnable = examples.filter((e) => e.mode === 'run');
const RUN_TIMEOUT_MS = 60_000;

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the docs' TypeScript examples", () => {
  it('are found, and each one that does not run says why', () => {
    expect(runnable.length).toBeGreaterThan(0);
    for (const example of examples) if (example.mode !== 'run') expect(example.reason, example.at).toBeTruthy();
  });

  it('type-check against the built package, strict, as one nodenext project', () => {
    expect(typeErrorsOfExamples(checked)).toEqual([]);
  });

  it.each(runnable.map((e) => [e.at, e] as const))(
    '%s runs offline as written',
    async (_at, example) => {
      const run = await runNode(['--import', 'tsx', example.file], { cwd: project, timeoutMs: RUN_TIMEOUT_MS });
      expect({ at: example.at, code: run.code, stderr: run.stderr }).toEqual({ at: example.at, code: 0, stderr: '' });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
