// Internal: compileGlob (src/tools/workspace/glob.ts) and WorkspacePathError (src/tools/workspace/paths.ts): the glob tool's matches and the tools' refusals are their public face; workspaceTools and its types come through forkpool.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Tool, type WorkspaceLimits, workspaceTools } from '../src/index.js';
import { compileGlob, WorkspacePathError } from '../src/tools/workspace/index.js';

let base = '';
let root = '';
let outside = '';

/** Runs a tool as the host would: the schema parses the args first, then execute. */
async function call(name: string, args: unknown, limits?: WorkspaceLimits, signal?: AbortSignal): Promise<unknown> {
  const tool = workspaceTools(root, limits).find((t: Tool) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const parsed = tool.parameters.parse(args);
  return tool.execute(parsed, { forkId: 'fork-1', signal: signal ?? new AbortController().signal });
}

async function refusal(name: string, args: unknown): Promise<WorkspacePathError> {
  const err = await call(name, args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkspacePathError);
  return err as WorkspacePathError;
}

beforeAll(async () => {
  base = realpathSync(await mkdtemp(path.join(tmpdir(), 'forkpool-ws-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(outside, 'dir'), { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), 'TODO secret outside\n');
  await writeFile(path.join(outside, 'dir', 'leak.ts'), 'TODO leaked\n');

  await mkdir(path.join(root, 'src', 'nested'), { recursive: true });
  await mkdir(path.join(root, 'node_modules', 'pkg'), { recursive: true });
  await mkdir(path.join(root, '.git'), { recursive: true });
  await writeFile(path.join(root, 'README.md'), '# Demo\nhello world\nbye\n');
  await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n// TODO: first\n');
  await writeFile(path.join(root, 'src', 'b.js'), 'const b = 2;\n');
  await writeFile(path.join(root, 'src', 'nested', 'c.ts'), 'line one\ntodo lower\n// TODO: nested\n');
  await writeFile(path.join(root, 'node_modules', 'pkg', 'index.ts'), 'TODO in a dependency\n');
  await writeFile(path.join(root, '.git', 'config'), 'TODO in git\n');
  await writeFile(path.join(root, 'bin.dat'), Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0x00, 0x01, 0x02]));
  await writeFile(path.join(root, 'long.txt'), `${'x'.repeat(50)}\nshort\n`);
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-out.txt'));
  await symlink(path.join(outside, 'dir'), path.join(root, 'linkdir-out'));
  await symlink(path.join(root, 'src', 'a.ts'), path.join(root, 'link-in.ts'));
  await symlink(root, path.join(root, 'src', 'loop')); // a cycle back to the root
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('workspaceTools', () => {
  it('returns the four read-only tools with declarations and no approval', () => {
    const tools = workspaceTools(root);
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'list_dir', 'glob', 'grep']);
    expect(tools.every((t) => t.approval === 'never' && !t.interactive)).toBe(true);
    expect(tools[0]?.declaration.parametersJsonSchema).toMatchObject({ required: ['path'] });
  });

  it('fails at once for a missing root or a bad limit', () => {
    expect(() => workspaceTools(path.join(base, 'nope'))).toThrow(/ENOENT/);
    expect(() => workspaceTools(path.join(root, 'README.md'))).toThrow(/is not a directory/);
    expect(() => workspaceTools(root, { maxResults: 0 })).toThrow('limits.maxResults must be a positive integer, got 0');
  });
});

describe('read_file', () => {
  it('reads a whole file', async () => {
    expect(await call('read_file', { path: 'README.md' })).toEqual({
      path: 'README.md',
      content: '# Demo\nhello world\nbye',
      totalLines: 3,
      truncated: false,
    });
  });

  it('reads a line window with offset and limit', async () => {
    expect(await call('read_file', { path: './README.md', offset: 2, limit: 1 })).toEqual({
      path: 'README.md',
      content: 'hello world',
      totalLines: 3,
      truncated: true,
    });
  });

  it('accepts an absolute path inside the root and a symlink that stays inside', async () => {
    expect(await call('read_file', { path: path.join(root, 'src', 'b.js') })).toMatchObject({ path: 'src/b.js', content: 'const b = 2;' });
    expect(await call('read_file', { path: 'link-in.ts' })).toMatchObject({ path: 'src/a.ts', totalLines: 2 });
  });

  it('clips long lines and says so', async () => {
    expect(await call('read_file', { path: 'long.txt' }, { maxLineChars: 10 })).toEqual({
      path: 'long.txt',
      content: `${'x'.repeat(10)}… [line truncated, 50 chars]\nshort`,
      totalLines: 2,
      truncated: true,
    });
  });

  it('returns only the first maxFileBytes of a big file, flagged truncated', async () => {
    expect(await call('read_file', { path: 'README.md' }, { maxFileBytes: 10 })).toEqual({
      path: 'README.md',
      content: '# Demo\nhel',
      totalLines: 2,
      truncated: true,
    });
  });

  it('refuses binary files, directories and missing files with clear messages', async () => {
    await expect(call('read_file', { path: 'bin.dat' })).rejects.toThrow(
      'read_file: "bin.dat" is a binary file; read_file returns text only',
    );
    await expect(call('read_file', { path: 'src' })).rejects.toThrow('read_file: "src" is a directory; use list_dir');
    const missing = await refusal('read_file', { path: 'nope.txt' });
    expect(missing.rule).toBe('not_found');
    expect(missing.message).toBe('path "nope.txt" does not exist in the workspace');
  });
});

describe('list_dir', () => {
  it('lists the root with names, types and sizes, without following symlinks', async () => {
    const result = (await call('list_dir', {})) as {
      path: string;
      entries: { name: string; type: string; size: number }[];
      truncated: boolean;
    };
    expect(result.path).toBe('.');
    expect(result.truncated).toBe(false);
    expect(result.entries.map((e) => [e.name, e.type])).toEqual([
      ['.git', 'dir'],
      ['README.md', 'file'],
      ['bin.dat', 'file'],
      ['link-in.ts', 'symlink'],
      ['link-out.txt', 'symlink'],
      ['linkdir-out', 'symlink'],
      ['long.txt', 'file'],
      ['node_modules', 'dir'],
      ['src', 'dir'],
    ]);
    expect(result.entries.find((e) => e.name === 'README.md')?.size).toBe(23);
    expect(result.entries.find((e) => e.name === 'bin.dat')?.size).toBe(7);
  });

  it('lists a subdirectory and truncates at maxResults', async () => {
    expect(await call('list_dir', { path: 'src' })).toEqual({
      path: 'src',
      entries: [
        { name: 'a.ts', type: 'file', size: 35 },
        { name: 'b.js', type: 'file', size: 13 },
        { name: 'loop', type: 'symlink', size: root.length },
        { name: 'nested', type: 'dir', size: expect.any(Number) },
      ],
      truncated: false,
    });
    const cut = (await call('list_dir', { path: 'src' }, { maxResults: 2 })) as { entries: { name: string }[]; truncated: boolean };
    expect(cut.entries.map((e) => e.name)).toEqual(['a.ts', 'b.js']);
    expect(cut.truncated).toBe(true);
  });

  it('refuses a file with a hint', async () => {
    await expect(call('list_dir', { path: 'README.md' })).rejects.toThrow('list_dir: "README.md" is not a directory; use read_file');
  });
});

describe('glob', () => {
  it('matches ** across directories, skipping node_modules, .git, outside symlinks and cycles', async () => {
    expect(await call('glob', { pattern: '**/*.ts' })).toEqual({
      matches: ['link-in.ts', 'src/a.ts', 'src/nested/c.ts'],
      truncated: false,
    });
  });

  it('supports *, ?, {a,b} and [..]', async () => {
    expect(await call('glob', { pattern: 'src/*.{ts,js}' })).toEqual({ matches: ['src/a.ts', 'src/b.js'], truncated: false });
    expect(await call('glob', { pattern: 'src/?.ts' })).toEqual({ matches: ['src/a.ts'], truncated: false });
    expect(await call('glob', { pattern: '*.md' })).toEqual({ matches: ['README.md'], truncated: false });
    expect(await call('glob', { pattern: '[bl]*' })).toEqual({ matches: ['bin.dat', 'link-in.ts', 'long.txt'], truncated: false });
  });

  it('flags truncation at maxResults and at maxDepth', async () => {
    expect(await call('glob', { pattern: '**' }, { maxResults: 2 })).toEqual({ matches: ['README.md', 'bin.dat'], truncated: true });
    expect(await call('glob', { pattern: '**/*.ts' }, { maxDepth: 1 })).toEqual({ matches: ['link-in.ts', 'src/a.ts'], truncated: true });
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('fork cancelled'));
    await expect(call('glob', { pattern: '**' }, undefined, ac.signal)).rejects.toThrow('fork cancelled');
  });
});

describe('compileGlob', () => {
  it('compiles each operator', () => {
    expect(compileGlob('**/*.ts').source).toBe('^(?:.*/)?[^/]*\\.ts$');
    expect(compileGlob('a/**').test('a/b/c')).toBe(true);
    expect(compileGlob('*.ts').test('src/a.ts')).toBe(false);
    expect(compileGlob('{src,lib}/**/*.{ts,tsx}').test('lib/x/y.tsx')).toBe(true);
    expect(compileGlob('{src,lib}/**/*.{ts,tsx}').test('test/y.ts')).toBe(false);
    expect(compileGlob('{a,{b,c}}.md').test('c.md')).toBe(true);
    expect(compileGlob('[!a]?.txt').test('bc.txt')).toBe(true);
    expect(compileGlob('[!a]?.txt').test('ac.txt')).toBe(false);
    expect(compileGlob('a+(b).js').test('a+(b).js')).toBe(true);
    expect(compileGlob('{unclosed').test('{unclosed')).toBe(true);
  });
});

describe('grep', () => {
  it('finds lines across the tree, skipping binary files, node_modules, .git and outside symlinks', async () => {
    expect(await call('grep', { pattern: 'TODO' })).toEqual({
      matches: [
        { path: 'link-in.ts', line: 2, text: '// TODO: first' },
        { path: 'src/a.ts', line: 2, text: '// TODO: first' },
        { path: 'src/nested/c.ts', line: 3, text: '// TODO: nested' },
      ],
      truncated: false,
    });
  });

  it('filters by path, by glob (a name glob matches at any depth) and ignores case on request', async () => {
    expect(await call('grep', { pattern: 'todo', path: 'src/nested', ignoreCase: true })).toEqual({
      matches: [
        { path: 'src/nested/c.ts', line: 2, text: 'todo lower' },
        { path: 'src/nested/c.ts', line: 3, text: '// TODO: nested' },
      ],
      truncated: false,
    });
    expect(await call('grep', { pattern: 'const', glob: '*.js' })).toEqual({
      matches: [{ path: 'src/b.js', line: 1, text: 'const b = 2;' }],
      truncated: false,
    });
    expect(await call('grep', { pattern: '^hello', path: 'README.md' })).toEqual({
      matches: [{ path: 'README.md', line: 2, text: 'hello world' }],
      truncated: false,
    });
  });

  it('caps results, clips lines, and flags files too big to search', async () => {
    expect(await call('grep', { pattern: 'TODO', maxResults: 1 })).toEqual({
      matches: [{ path: 'link-in.ts', line: 2, text: '// TODO: first' }],
      truncated: true,
    });
    expect(await call('grep', { pattern: 'x{5}', path: 'long.txt' }, { maxLineChars: 5 })).toEqual({
      matches: [{ path: 'long.txt', line: 1, text: 'xxxxx… [line truncated, 50 chars]' }],
      truncated: false,
    });
    expect(await call('grep', { pattern: 'TODO', path: 'src' }, { maxFileBytes: 30 })).toEqual({
      matches: [],
      truncated: true,
    });
  });

  it('reports an invalid regular expression, and lookaround or backreferences as outside RE2', async () => {
    await expect(call('grep', { pattern: '(' })).rejects.toThrow(
      /grep: pattern "\(" is not a valid RE2 regular expression .*: missing closing \)/,
    );
    await expect(call('grep', { pattern: '(?=TODO)' })).rejects.toThrow(
      /without lookaround or backreferences\): invalid or unsupported Perl syntax/,
    );
  });

  it('runs a catastrophic pattern in linear time: ^(a+)+$ over long lines answers, and matches what it should', async () => {
    await mkdir(path.join(root, 'redos'));
    try {
      await writeFile(path.join(root, 'redos', 'lines.txt'), `${'a'.repeat(36)}!\n${'a'.repeat(5000)}\n${'a'.repeat(100_000)}!\n`);
      // A backtracking engine needs minutes on the 36-character line alone; this answers at once.
      expect(await call('grep', { pattern: '^(a+)+$', path: 'redos/lines.txt' }, { maxLineChars: 10 })).toEqual({
        matches: [{ path: 'redos/lines.txt', line: 2, text: 'aaaaaaaaaa… [line truncated, 5000 chars]' }],
        truncated: false,
      });
    } finally {
      await rm(path.join(root, 'redos'), { recursive: true });
    }
  });
});

describe('glob patterns from a model', () => {
  it('run in linear time too: a star-heavy glob over long names answers', async () => {
    const name = `${'a'.repeat(200)}.txt`;
    await mkdir(path.join(root, 'longnames'));
    try {
      await writeFile(path.join(root, 'longnames', name), 'x');
      expect(compileGlob(`${'*a'.repeat(30)}*b`).test(name)).toBe(false);
      expect(await call('glob', { pattern: `longnames/${'*a'.repeat(30)}*.txt` })).toEqual({
        matches: [`longnames/${name}`],
        truncated: false,
      });
    } finally {
      await rm(path.join(root, 'longnames'), { recursive: true });
    }
  });
});

describe('confinement', () => {
  it('refuses ".." escapes, naming the path and the rule', async () => {
    const err = await refusal('read_file', { path: '../outside/secret.txt' });
    expect(err.rule).toBe('outside_root');
    expect(err.message).toBe('path "../outside/secret.txt" is refused: it resolves (through "..") outside the workspace root');
    expect((await refusal('read_file', { path: 'src/../../outside/secret.txt' })).rule).toBe('outside_root');
    expect((await refusal('list_dir', { path: '..' })).rule).toBe('outside_root');
    expect((await refusal('grep', { pattern: 'TODO', path: '../outside' })).rule).toBe('outside_root');
  });

  it('refuses absolute paths outside the root', async () => {
    const err = await refusal('read_file', { path: path.join(outside, 'secret.txt') });
    expect(err.rule).toBe('absolute_outside_root');
    expect(err.message).toContain('is refused: it is an absolute path outside the workspace root');
    expect((await refusal('list_dir', { path: '/' })).rule).toBe('absolute_outside_root');
  });

  it('refuses a symlinked file that points outside', async () => {
    const err = await refusal('read_file', { path: 'link-out.txt' });
    expect(err.rule).toBe('symlink_outside_root');
    expect(err.message).toBe('path "link-out.txt" is refused: it goes through a symlink that resolves outside the workspace root');
    expect((await refusal('grep', { pattern: 'TODO', path: 'link-out.txt' })).rule).toBe('symlink_outside_root');
  });

  it('refuses a symlinked directory that points outside, and paths through it', async () => {
    expect((await refusal('list_dir', { path: 'linkdir-out' })).rule).toBe('symlink_outside_root');
    expect((await refusal('read_file', { path: 'linkdir-out/leak.ts' })).rule).toBe('symlink_outside_root');
    expect((await refusal('grep', { pattern: 'TODO', path: 'linkdir-out' })).rule).toBe('symlink_outside_root');
  });

  it('refuses very long paths without echoing them whole', async () => {
    const long = 'a/'.repeat(2100);
    const err = await refusal('read_file', { path: long });
    expect(err.rule).toBe('too_long');
    expect(err.message).toBe(`path ${JSON.stringify(`${long.slice(0, 200)}…`)} (4200 chars) is refused: it is longer than 4096 characters`);
  });

  it('refuses NUL bytes in paths and patterns', async () => {
    const err = await refusal('read_file', { path: 'README.md\0.txt' });
    expect(err.rule).toBe('nul');
    expect(err.message).toBe('path "README.md\\u0000.txt" is refused: it contains a NUL character');
    expect((await refusal('list_dir', { path: '\0' })).rule).toBe('nul');
    await expect(call('glob', { pattern: '*\0' })).rejects.toThrow('glob: pattern is refused: it contains a NUL character');
  });

  it('never returns outside content through walks', async () => {
    const all = (await call('glob', { pattern: '**' })) as { matches: string[] };
    expect(all.matches).toEqual(['README.md', 'bin.dat', 'link-in.ts', 'long.txt', 'src/a.ts', 'src/b.js', 'src/nested/c.ts']);
    const found = (await call('grep', { pattern: 'secret|leaked' })) as { matches: unknown[] };
    expect(found.matches).toEqual([]);
  });
});
