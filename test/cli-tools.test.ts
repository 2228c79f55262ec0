import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './fixtures/cli/run-cli.js';

/*
 * Tools through the CLI: the workspace tools confined to --workspace (escapes through ".." and
 * through a symlink are refused, and nothing from outside reaches the model), and a user module
 * loaded with --tools whose tool the forks call. The scripted model's RECALL lists what the fork's
 * requests held, tool responses included, so the answers show exactly what each tool returned.
 */

const SESSION = 'test/fixtures/cli/session.json';
const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'forkpool-cli-tools-')));
const workspace = join(tmp, 'ws');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(() => {
  mkdirSync(join(workspace, 'docs'), { recursive: true });
  mkdirSync(join(tmp, 'outside'));
  writeFileSync(join(workspace, 'docs', 'note.txt'), 'INSIDE-4K2 a note inside the workspace\n');
  writeFileSync(join(tmp, 'outside', 'secret.txt'), 'SECRET-8J3 must never be read\n');
  symlinkSync('../outside', join(workspace, 'link'));
  symlinkSync(join(tmp, 'outside', 'secret.txt'), join(workspace, 'docs', 'secret-link.txt'));
});

const SEEN = 'RECALL (?:INSIDE|SECRET)-\\w+';
const REFUSAL = 'RECALL is refused: it [^}]*?workspace root';

function task(id: string, path: string): string {
  return JSON.stringify({ id, directive: `Read ${path}.\nCALL read_file ${JSON.stringify({ path })}\n${REFUSAL}\n${SEEN}` });
}

interface Result {
  id: string;
  status: string;
  text: string;
  toolCalls: number;
}

async function runTasks(lines: string[], extra: string[] = []): Promise<{ code: number | null; byId: Map<string, Result> }> {
  const run = await runCli(['run', '--session', SESSION, '--tasks', '-', '--output-format', 'json', ...extra], { input: lines.join('\n') });
  const summary = JSON.parse(run.stdout) as { results: Result[] };
  return { code: run.code, byId: new Map(summary.results.map((r) => [r.id, r])) };
}

describe('workspace tools through forkpool run --workspace', () => {
  it('read inside works; "..", a symlinked directory and a symlinked file are refused and leak nothing', async () => {
    const { code, byId } = await runTasks(
      [
        task('inside', 'docs/note.txt'),
        task('dotdot', '../outside/secret.txt'),
        task('dir-symlink', 'link/secret.txt'),
        task('file-symlink', 'docs/secret-link.txt'),
        task('absolute', join(tmp, 'outside', 'secret.txt')),
      ],
      ['--workspace', workspace],
    );
    expect(code).toBe(0);
    const inside = byId.get('inside') as Result;
    expect(inside.toolCalls).toBe(1);
    expect(inside.text).toContain('RECALL (?:INSIDE|SECRET)-\\w+: INSIDE-4K2');
    expect(inside.text).toContain('workspace root: no match');

    const dotdot = byId.get('dotdot')?.text ?? '';
    expect(dotdot).toContain('is refused: it resolves (through \\"..\\") outside the workspace root');
    for (const id of ['dir-symlink', 'file-symlink']) {
      expect(byId.get(id)?.text).toContain('is refused: it goes through a symlink that resolves outside the workspace root');
    }
    expect(byId.get('absolute')?.text).toContain('is refused: it is an absolute path outside the workspace root');
    for (const id of ['dotdot', 'dir-symlink', 'file-symlink', 'absolute']) {
      expect(byId.get(id)?.toolCalls).toBe(1);
      expect(byId.get(id)?.text).toContain('RECALL (?:INSIDE|SECRET)-\\w+: no match');
    }
  });

  it('list_dir and grep cannot step out either', async () => {
    const { byId } = await runTasks(
      [
        JSON.stringify({
          id: 'list-up',
          directive: `CALL list_dir {"path":".."}\nRECALL list_dir failed: [^}]*?workspace root\nRECALL secret\\.txt`,
        }),
        JSON.stringify({
          id: 'grep-link',
          directive: `CALL grep {"pattern":"SECRET","path":"link"}\nRECALL grep failed: [^}]*?workspace root\nRECALL (?:SECRET)-\\w+`,
        }),
      ],
      ['--workspace', workspace],
    );
    expect(byId.get('list-up')?.text).toContain('list_dir failed: path \\"..\\" is refused');
    expect(byId.get('list-up')?.text).toContain('RECALL secret\\.txt: no match');
    expect(byId.get('grep-link')?.text).toContain('grep failed: path \\"link\\" is refused: it goes through a symlink');
    expect(byId.get('grep-link')?.text).toContain('RECALL (?:SECRET)-\\w+: no match');
  });

  it('without --workspace the declared workspace tools have no implementation and the call is rejected', async () => {
    const { code, byId } = await runTasks([
      JSON.stringify({
        id: 'no-ws',
        directive: 'CALL read_file {"path":"README.md"}\nRECALL Tool read_file is declared but has no implementation[^"]*',
      }),
    ]);
    expect(code).toBe(0);
    expect(byId.get('no-ws')?.text).toContain('Tool read_file is declared but has no implementation on this host.');
  });
});

describe('a tools module through forkpool run --tools', () => {
  it("forks call the module's tool; its zod schema rejects bad args; a tool that throws becomes an error the fork sees", async () => {
    const { code, byId } = await runTasks(
      [
        JSON.stringify({ id: 'ticket', directive: 'Who owns FP-102?\nCALL lookup_ticket {"id":"FP-102"}\nRECALL owner-\\w+' }),
        JSON.stringify({
          id: 'two',
          directive: 'CALL lookup_ticket {"id":"FP-101"}\nCALL@2 lookup_ticket {"id":"FP-102"}\nRECALL owner-\\w+',
        }),
        JSON.stringify({ id: 'bad-args', directive: 'CALL lookup_ticket {"id":"101"}\nRECALL Invalid arguments for lookup_ticket[^"]*' }),
        JSON.stringify({ id: 'unknown', directive: 'CALL lookup_ticket {"id":"FP-999"}\nRECALL lookup_ticket failed: [^"]*' }),
        JSON.stringify({
          id: 'restricted',
          tools: ['read_file'],
          directive: 'CALL lookup_ticket {"id":"FP-101"}\nRECALL Tool lookup_ticket is not allowed[^"]*',
        }),
      ],
      ['--tools', 'test/fixtures/cli/tools.mjs', '--workspace', workspace],
    );
    expect(code).toBe(0);
    expect(byId.get('ticket')?.text).toBe('RECALL owner-\\w+: owner-grace');
    expect(byId.get('ticket')?.toolCalls).toBe(1);
    expect(byId.get('two')?.text).toBe('RECALL owner-\\w+: owner-ada, owner-grace');
    expect(byId.get('two')?.toolCalls).toBe(2);
    expect(byId.get('bad-args')?.text).toMatch(/Invalid arguments for lookup_ticket: id: .+Fix them and call again\./);
    expect(byId.get('unknown')?.text).toContain('lookup_ticket failed: no ticket FP-999');
    expect(byId.get('restricted')?.text).toContain('Tool lookup_ticket is not allowed in this fork. Tools you may call: read_file.');
  });
});
