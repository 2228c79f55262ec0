import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/* The module graph of src/ has no cycle, type imports included (issue 13). */

const SRC = resolve('src');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? modules(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gs)) {
    found.push(resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
  }
  return found;
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.get(node) === undefined) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

describe('the module graph of src/', () => {
  it('has no import cycle, type imports included', () => {
    const graph = new Map(modules(SRC).map((file) => [file, importsOf(file)]));
    expect(graph.size).toBeGreaterThan(50);
    const cycle = findCycle(graph)?.map((file) => relative(SRC, file));
    expect(cycle).toBeUndefined();
  });

  it('would see one: the check finds a planted cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCycle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});

/** Static imports and `import('…')` calls alike: a floor reaches up either way. */
function everyImportOf(file: string): string[] {
  const dynamic = [...readFileSync(file, 'utf8').matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')));
  return [...importsOf(file), ...dynamic];
}

describe('floors: the session and tools floors import nothing from the floors above (issue 23)', () => {
  const graph = new Map(modules(SRC).map((file) => [file, everyImportOf(file)]));
  /** Each floor's files, and the folders of src/ none of them may import from. */
  const floors: [string, string[]][] = [
    ['session', ['import', 'convert', 'engine', 'cli', 'queue', 'local-server', 'model', 'dialect', 'fork', 'tools', 'prefix']],
    // The tools floor applies the fork rules' refusals (their wording lives in src/fork) and nothing above.
    ['tools', ['import', 'convert', 'engine', 'cli', 'queue', 'local-server', 'model', 'dialect', 'prefix']],
  ];
  it.each(floors)('src/%s', (floor, above) => {
    const reaching: string[] = [];
    for (const [file, imports] of graph) {
      if (!relative(SRC, file).startsWith(`${floor}/`)) continue;
      for (const target of imports) {
        const folder = relative(SRC, target).split('/')[0] ?? '';
        if (above.includes(folder)) reaching.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
    expect(reaching).toEqual([]);
  });
});
