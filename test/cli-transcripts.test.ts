import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, writeTasks } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

const SESSION = 'test/fixtures/cli/session.json';
const KEY_ENV = { GEMINI_API_KEY: 'test-key-never-printed' };

let tmp: string;
let server: ServeProcess;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'forkpool-cli-transcripts-'));
  server = await startServe();
});
afterAll(async () => {
  await server.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function linesOf(file: string): Record<string, unknown>[] {
  return jsonLines(readFileSync(file, 'utf8'));
}

describe('transcripts through the CLI, against forkpool serve in another process', () => {
  it('run --transcripts writes one per fork; after SIGKILL mid-turn, --resume continues a fork from its last completed turn', async () => {
    const dir = join(tmp, 'kill');
    const workspace = join(dir, 'ws');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'a.txt'), 'CONTENT-77');
    const transcripts = join(dir, 'transcripts');
    // Every reply of the fork takes 1.5 s: the kill lands in its second turn, after its tool's answer is on record.
    const tasks = writeTasks(dir, [
      { id: 'two-turns', directive: 'SLEEP 1500\nCALL read_file {"path":"a.txt"}\nRECALL CONTENT-\\d+' },
      { id: 'quick', directive: 'REPLY quick' },
    ]);
    const out = join(dir, 'out.jsonl');
    const file = join(transcripts, 'two-turns.jsonl');
    const args = [
      'run',
      '--session',
      SESSION,
      '--tasks',
      tasks,
      '--out',
      out,
      '--workspace',
      workspace,
      '--transcripts',
      transcripts,
      '--provider',
      'gemini',
      '--base-url',
      server.url,
      '--warmup',
      'none',
    ];
    let poll: NodeJS.Timeout | undefined;
    const killed = await runCli(args, {
      env: KEY_ENV,
      onSpawn: (child) => {
        poll = setInterval(() => {
          if (existsSync(file) && readFileSync(file, 'utf8').includes('"role":"tool"')) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 25);
      },
    });
    clearInterval(poll);
    expect(killed.signal).toBe('SIGKILL');
    const cut = linesOf(file);
    expect(cut.map((l) => (l.type === 'message' ? `${l.role}@${l.turn}` : l.type))).toEqual([
      'header',
      'seed',
      'seed@0',
      'model@1',
      'tool@1',
    ]);
    expect(linesOf(join(transcripts, 'quick.jsonl')).at(-1)).toMatchObject({ type: 'end', status: 'completed' });

    const resumed = await runCli([...args, '--resume', '--output-format', 'json'], { env: KEY_ENV });
    expect(resumed.code).toBe(0);
    const byId = new Map(linesOf(out).map((r) => [r.id, r]));
    expect(byId.get('two-turns')).toMatchObject({ status: 'completed', turns: 2, toolCalls: 1 });
    expect(byId.get('two-turns')?.text).toContain('CONTENT-77');
    const after = linesOf(file);
    // Its first turn was not sent again: one model reply for turn 1, a resumed line, then turn 2.
    expect(after.map((l) => (l.type === 'message' ? `${l.role}@${l.turn}` : l.type))).toEqual([
      'header',
      'seed',
      'seed@0',
      'model@1',
      'tool@1',
      'resumed',
      'model@2',
      'end',
    ]);
    expect(after[5]).toMatchObject({ type: 'resumed', from: 'crash' });
    expect(readFileSync(file, 'utf8')).not.toContain('test-key-never-printed');

    // A person reads it: the crash's resumption and both turns, with the tool's answer.
    const printed = await runCli(['transcript', file]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('task two-turns');
    expect(printed.stdout).toContain('→ read_file({"path":"a.txt"})');
    expect(printed.stdout).toContain('resumed after a crash');
    expect(printed.stdout).toContain('CONTENT-77');
  });

  it('prompt: the placeholder names the output file, and send_message revives a completed task from it', async () => {
    const transcripts = join(tmp, 'revive');
    const prompt = [
      'FORK RECALL parent agent\\]: \\S+',
      'SLEEP 1000',
      'CALL@2 send_message {"task_id":"$TASK_ID","message":"hello-42"}',
      'RECALL output_file: \\S+|revived it with your message',
    ].join('\n');
    const run = await runCli(
      ['prompt', prompt, '--transcripts', transcripts, '--provider', 'gemini', '--base-url', server.url, '--output-format', 'stream-json'],
      { env: KEY_ENV },
    );
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout);
    const notifications = events.filter((e) => e.subtype === 'task_notification') as {
      data: { task_id: string; result: { text: string; status: string } };
    }[];
    expect(notifications).toHaveLength(2);
    const [first, revived] = notifications;
    expect(first?.data.task_id).toBe(revived?.data.task_id);
    expect(first?.data.result.text).toContain('no match');
    expect(revived?.data.result).toMatchObject({ status: 'completed', turns: 1 });
    expect(revived?.data.result.text).toContain('parent agent]: hello-42');
    expect(events.filter((e) => e.subtype === 'task_started')).toHaveLength(1);
    const result = events.at(-1) as { result: string };
    const file = join(transcripts, `${first?.data.task_id}.jsonl`);
    expect(result.result).toContain(`output_file: ${file}`);
    expect(result.result).toContain(', revived it with your message');
    expect(readdirSync(transcripts)).toEqual([`${first?.data.task_id}.jsonl`]);
    expect(linesOf(file).filter((l) => l.type === 'end')).toHaveLength(2);
  });
});
