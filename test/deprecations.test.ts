import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';

/*
 * The deprecated names of the package, each used twice by a program of its own (the package by
 * name, as a user imports it; `npm test` builds dist first): it still does what its replacement
 * does, and Node prints one DeprecationWarning with its code, naming the replacement.
 */

const run = promisify(execFile);

async function use(name: string, file: string | undefined, nodeFlags: string[] = []): Promise<{ result: unknown; warnings: string[] }> {
  const { stdout, stderr } = await run(
    process.execPath,
    [...nodeFlags, 'test/fixtures/deprecated/use.mjs', name, ...(file === undefined ? [] : [file])],
    { timeout: 60_000 },
  );
  // Node writes `(node:PID) [CODE] DeprecationWarning: message`.
  const warnings = stderr.split('\n').flatMap((line) => /^\(node:\d+\) (\[\w+\] DeprecationWarning: .*)$/.exec(line)?.[1] ?? []);
  return { result: JSON.parse(stdout), warnings };
}

// Each program starts on its own: they run side by side.
describe.concurrent('deprecated names still work and warn once, naming their replacement', () => {
  it.for([
    {
      name: 'freezePrefix',
      file: 'examples/session.json',
      result: { sameId: true, decoded: true },
      warning:
        '[FORKPOOL_DEP_FREEZE_PREFIX] DeprecationWarning: freezePrefix is deprecated and the next minor version removes it: use engine.freeze(session), which does the same',
    },
    {
      name: 'importSession',
      file: 'test/fixtures/import/qwen-code.jsonl',
      result: { sameSession: true, sameSummary: true, again: true },
      warning:
        '[FORKPOOL_DEP_IMPORT_SESSION] DeprecationWarning: importSession is deprecated and the next minor version removes it: use loadSession(path, { onImport }), whose onImport gets the import summary',
    },
    {
      name: 'loadTasks',
      file: 'examples/research.jsonl',
      result: { tasks: 8, sameTasks: true },
      warning:
        '[FORKPOOL_DEP_LOAD_TASKS] DeprecationWarning: loadTasks is deprecated and the next minor version removes it: use streamTasks(path), which fanOut takes as it is (or collect it: for await (const task of await streamTasks(path)))',
    },
    {
      name: 'run.stop',
      file: undefined,
      // Stopped while running, then not again: as before.
      result: { answers: [true, false], status: 'cancelled' },
      warning:
        '[FORKPOOL_DEP_RUN_STOP] DeprecationWarning: run.stop is deprecated and the next minor version removes it: use run.cancel(id), which now answers whether it cancelled the fork',
    },
    {
      name: "provider { kind: 'local', url }",
      file: undefined,
      // Two engines by the old name, one by the new: each fork's one request reached the server named.
      result: { statuses: ['completed', 'completed', 'completed'], requests: 3 },
      warning:
        "[FORKPOOL_DEP_LOCAL_URL] DeprecationWarning: provider { kind: 'local', url } is deprecated and the next minor version removes it: use { kind: 'local', baseUrl }, which names the endpoint as every other provider does",
    },
  ])('$name', async ({ name, file, result, warning }, { expect }) => {
    const used = await use(name, file);
    expect(used.result).toEqual(result);
    expect(used.warnings).toEqual([warning]);
  });

  it("--no-deprecation silences them, as it does Node's own", async ({ expect }) => {
    const used = await use('loadTasks', 'examples/research.jsonl', ['--no-deprecation']);
    expect(used.result).toEqual({ tasks: 8, sameTasks: true });
    expect(used.warnings).toEqual([]);
  });
});
