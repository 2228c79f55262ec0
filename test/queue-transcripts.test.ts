import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines } from './fixtures/cli/run-cli.js';
import { queueHarness, within, SESSION, RECALL, MARKER_ANSWER } from './support/queue-harness.js';

/*
 * Transcripts of a distributed run: the coordinator names each fork's file (an absolute path in a
 * folder the workers share: here, the same machine's), and the `forkpool worker` that runs the fork
 * writes it. The coordinator never sees a fork's messages, so a transcript with them is a worker's.
 */

const KEY = 'fp-test-key-transcripts-5b1e';
const h = queueHarness(KEY, 'forkpool-queue-transcripts-');

describe('forkpool run --queue --transcripts', () => {
  it('each fork’s transcript is written by the worker that ran it, at the path the coordinator named', async () => {
    const model = await h.modelServer();
    const dir = join(h.tmp(), 'transcripts');
    // Each worker writes only under the folder it was given (the shared one); a job names the file.
    await Promise.all([
      h.startWorker('w1', model.url, ['--transcripts-root', h.tmp()]),
      h.startWorker('w2', model.url, ['--transcripts-root', h.tmp()]),
    ]);
    const tasks = [1, 2, 3].map((i) => ({ id: `t${i}`, directive: `Quote the ticket (${i}).\n${RECALL}` }));
    const out = join(h.tmp(), 'out.jsonl');
    const run = h.cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      h.writeTasks('transcripts', tasks),
      '--queue',
      h.queueUrl(),
      '--transcripts',
      dir,
      '--out',
      out,
      '--output-format',
      'json',
    ]);
    const { code } = await within('the coordinator', run.exited);
    expect(code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['t1.jsonl', 't2.jsonl', 't3.jsonl']);
    for (const { id } of tasks) {
      const lines = jsonLines(readFileSync(join(dir, `${id}.jsonl`), 'utf8'));
      expect(lines[0]).toMatchObject({ type: 'header', taskId: id, format: 'gemini' });
      const reply = lines.find((l) => l.type === 'message' && l.role === 'model') as {
        message: { parts: { text: string }[] };
        usage: { promptTokens: number };
      };
      expect(reply.message.parts[0]?.text).toBe(MARKER_ANSWER);
      expect(reply.usage.promptTokens).toBeGreaterThan(0);
      expect(lines.at(-1)).toMatchObject({ type: 'end', status: 'completed', turns: 1 });
      expect(JSON.stringify(lines)).not.toContain(KEY);
    }
  });

  it('a worker without --transcripts-root writes none, and says so: a path from Redis does not choose its files', async () => {
    const model = await h.modelServer();
    const worker = await h.startWorker('w-none', model.url);
    const dir = join(h.tmp(), 'not-written');
    const run = h.cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      h.writeTasks('none', [{ id: 'n1', directive: 'REPLY none' }]),
      '--queue',
      h.queueUrl(),
      '--transcripts',
      dir,
      '--output-format',
      'json',
    ]);
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(worker.stderr()).toContain(`its transcript ${join(dir, 'n1.jsonl')} is not written: this worker has no --transcripts-root`);
  });

  it('a folder under the root that is a symbolic link out of it is refused', async () => {
    const model = await h.modelServer();
    const root = join(h.tmp(), 'root');
    const outside = mkdtempSync(join(tmpdir(), 'forkpool-outside-'));
    mkdirSync(root, { recursive: true });
    symlinkSync(outside, join(root, 'link'));
    const worker = await h.startWorker('w-link', model.url, ['--transcripts-root', root]);
    const run = h.cli([
      'run',
      '--session',
      SESSION,
      '--tasks',
      h.writeTasks('link', [{ id: 'l1', directive: 'REPLY link' }]),
      '--queue',
      h.queueUrl(),
      '--transcripts',
      join(root, 'link'),
      '--output-format',
      'json',
    ]);
    expect((await within('the coordinator', run.exited)).code).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
    expect(worker.stderr()).toContain('is not a .jsonl file under --transcripts-root');
    rmSync(outside, { recursive: true, force: true });
  });
});
