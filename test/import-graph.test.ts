import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// Internal: the registry's list of formats (src/shapes/registry.ts): the literals the rule is about.
import { shapeFormats } from '../src/shapes/registry.js';

/* The module graph of src/ has no cycle, type imports included. */

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
  const dynamic = [...readFileSync(file, 'utf8').matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) =>
    resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')),
  );
  return [...importsOf(file), ...dynamic];
}

/** What a folder of src/ may not import, whatever the ladder allows: the rooms the architecture page draws. */
const FORBIDDEN: [string, string[]][] = [
  ['session', ['import', 'convert', 'engine', 'cli', 'queue', 'local-server', 'model', 'fork', 'tools', 'prefix', 'wire', 'fork-thread']],
  // The tools floor applies the fork rules' refusals and nothing above.
  ['tools', ['import', 'convert', 'engine', 'cli', 'queue', 'local-server', 'model', 'prefix', 'wire', 'fork-thread']],
  // The thread boundary: what runs in a fork's thread and what runs on the main thread know each other only through the wire.
  ['fork-thread', ['engine', 'queue', 'cli', 'ui', 'ai-sdk', 'openai-agents', 'fork-tool']],
  ['engine', ['fork-thread']],
  ['wire', ['engine', 'fork-thread', 'queue', 'cli']],
];

/** Each import of a folder's modules into a folder it may not import, as `module → target`. */
function forbiddenImports(graph: ReadonlyMap<string, readonly string[]>, folder: string, forbidden: readonly string[]): string[] {
  const reaching: string[] = [];
  for (const [file, imports] of graph) {
    if (!relative(SRC, file).startsWith(`${folder}/`)) continue;
    for (const target of imports) {
      if (forbidden.includes(relative(SRC, target).split('/')[0] ?? '')) reaching.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
    }
  }
  return reaching;
}

/** The simulator judges the client: it imports nothing of it but the public wording it must recognize (and how a thread starts). */
const SIMULATOR_MAY_IMPORT = ['local-server', 'wording', 'thread-start'];

describe('rooms: what a folder may not import', () => {
  const graph = new Map(modules(SRC).map((file) => [file, everyImportOf(file)]));
  it.each(FORBIDDEN)('src/%s', (folder, forbidden) => {
    expect(forbiddenImports(graph, folder, forbidden)).toEqual([]);
  });

  it('the simulator (src/local-server) imports only the wording of what it judges', () => {
    const everything = [...new Set([...graph.keys()].map((file) => relative(SRC, file).split('/')[0] ?? ''))].filter(
      (folder) => !folder.endsWith('.ts'),
    );
    const others = everything.filter((folder) => !SIMULATOR_MAY_IMPORT.includes(folder));
    expect(others.length).toBeGreaterThan(10);
    expect(forbiddenImports(graph, 'local-server', others)).toEqual([]);
  });

  it('would see a breach: a planted import is named', () => {
    const planted = new Map([[join(SRC, 'fork-thread/x.ts'), [join(SRC, 'engine/run.ts'), join(SRC, 'wire/protocol.ts')]]]);
    expect(forbiddenImports(planted, 'fork-thread', ['engine'])).toEqual(['fork-thread/x.ts → engine/run.ts']);
  });
});

/*
 * The shape rule: a shape's wire form is known in its folder (src/shapes/<format>/), and everything
 * else reaches it through the registry (src/shapes/registry.ts, and loading.ts on the main thread) and the Shape's facets. No other
 * module imports a shape's folder (type imports and import() included) or compares a format to a
 * shape's literal, except the provider modules, which speak their wires: src/model/providers/, the
 * model clients and their common base, the providers' presets, and the local simulator, which stays
 * an independent oracle with its own tables.
 */

/** The registry, and its main thread's side (each shape's session check and logged requests' reader, which take zod). */
const REGISTRIES = ['shapes/registry.ts', 'shapes/loading.ts'];

const PROVIDER_MODULES = [
  /^model\/providers\//,
  /^model\/(genai|openai-chat|openai-responses|anthropic|ai-sdk|streaming-provider|presets)\.ts$/,
  /^local-server\//,
];

/** What a shape's folder may import of src/: the shapes' neutral modules and folders, the input rules, the fork's wording. */
const BENEATH_SHAPES = [/^shapes\//, /^input\//, /^wording\//];

/** The comment that exempts a line (or the line after it): the literal is not a session's or request's format. */
const NOT_A_FORMAT = /\/\/.*\bnot a format\b/;

/** Which shape's folder a module of src/ sits in (undefined: none). */
function shapeFolderOf(module: string, formats: readonly string[]): string | undefined {
  const [top, folder] = module.split('/');
  return top === 'shapes' && folder !== undefined && formats.includes(folder) && module.split('/').length > 2 ? folder : undefined;
}

/** What in a line compares a format to a shape's literal: `=== 'gemini'`, `'gemini' !==`, `case 'gemini':`, `Exclude<…, 'gemini'>`. */
function comparisonsIn(line: string, formats: readonly string[]): string[] {
  const code = line.trim();
  if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
  const found: string[] = [];
  for (const format of formats) {
    const literal = `'${format}'`;
    const at = (pattern: string): RegExp => new RegExp(pattern.replace('LIT', literal.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')));
    if (
      at('(===|!==|==|!=)\\s*LIT').test(code) ||
      at('LIT\\s*(===|!==|==|!=)').test(code) ||
      at('\\bcase\\s+LIT\\s*:').test(code) ||
      at('\\b(Exclude|Extract)<[^;]*LIT').test(code)
    ) {
      found.push(format);
    }
  }
  return found;
}

/** Each breach of the rule as `module:line: what` (module paths relative to src/). */
function shapeRuleBreaches(files: ReadonlyMap<string, { text: string; imports: readonly string[] }>, formats: readonly string[]): string[] {
  const breaches: string[] = [];
  for (const [module, { text, imports }] of files) {
    if (REGISTRIES.includes(module) || PROVIDER_MODULES.some((allowed) => allowed.test(module))) continue;
    const own = shapeFolderOf(module, formats);
    const lines = text.split('\n');
    for (const target of imports) {
      // A shape's folder stands below everything but the neutral code it implements.
      if (own !== undefined && !BENEATH_SHAPES.some((allowed) => allowed.test(target))) {
        const line = lines.findIndex((l) => l.includes(target.split('/').slice(-2).join('/').replace(/\.ts$/, ''))) + 1;
        breaches.push(`${module}:${line}: a shape's folder imports ${target}, above it`);
        continue;
      }
      const folder = shapeFolderOf(target, formats);
      if (folder === undefined || folder === own) continue;
      const line =
        lines.findIndex((l) => l.includes(target.split('/').slice(-2).join('/').replace(/\.ts$/, '')) || l.includes(`./${folder}/`)) + 1;
      breaches.push(`${module}:${line}: imports ${target}`);
    }
    lines.forEach((line, i) => {
      // A literal that only spells like a format (Gemini CLI's record type 'gemini') says so in a comment.
      if (NOT_A_FORMAT.test(line) || NOT_A_FORMAT.test(lines[i - 1] ?? '')) return;
      for (const format of comparisonsIn(line, formats))
        if (format !== own) breaches.push(`${module}:${i + 1}: compares a format to '${format}'`);
    });
  }
  return breaches;
}

function sourceFiles(): Map<string, { text: string; imports: string[] }> {
  return new Map(
    modules(SRC).map((file) => [
      relative(SRC, file),
      { text: readFileSync(file, 'utf8'), imports: everyImportOf(file).map((target) => relative(SRC, target)) },
    ]),
  );
}

describe("the shape rule: only a shape's folder, the registry and the provider modules know a shape", () => {
  const formats = shapeFormats();
  const breaches = shapeRuleBreaches(sourceFiles(), formats);
  it("no module outside them imports a shape's folder or compares a format to a shape's literal", () => {
    expect(formats.length).toBeGreaterThanOrEqual(5);
    expect(breaches).toEqual([]);
  });

  it('would see a breach: planted imports and comparisons are named with their line', () => {
    const planted = new Map([
      [
        'engine/planted.ts',
        {
          text: "import type { Content } from '../shapes/gemini/schema.js';\nconst x = 1;\nif (session.format === 'openai-chat') x;\n",
          imports: ['shapes/gemini/schema.ts'],
        },
      ],
      [
        'cli/planted.ts',
        {
          text: "switch (format) {\n  case 'anthropic-messages':\n}\ntype T = Exclude<F, 'ai-sdk'>;\nconst y = await import('../shapes/openai-responses/dialect.js');\n",
          imports: ['shapes/openai-responses/dialect.ts'],
        },
      ],
      // Allowed: a shape's folder naming itself, the registry, a provider module, a comment.
      ['shapes/gemini/planted.ts', { text: "if (request.format === 'gemini') {}\n", imports: ['shapes/gemini/schema.ts'] }],
      ['shapes/registry.ts', { text: "if (format === 'gemini') {}\n", imports: ['shapes/gemini/index.ts'] }],
      ['model/providers/planted.ts', { text: "if (format === 'gemini') {}\n", imports: ['shapes/gemini/schema.ts'] }],
      [
        'engine/commented.ts',
        {
          text: "// format === 'gemini' is the default\nif (record.type === 'gemini') {} // not a format: Gemini CLI's record type\n",
          imports: [],
        },
      ],
    ]);
    expect(shapeRuleBreaches(planted, formats)).toEqual([
      'engine/planted.ts:1: imports shapes/gemini/schema.ts',
      "engine/planted.ts:3: compares a format to 'openai-chat'",
      'cli/planted.ts:5: imports shapes/openai-responses/dialect.ts',
      "cli/planted.ts:2: compares a format to 'anthropic-messages'",
      "cli/planted.ts:4: compares a format to 'ai-sdk'",
    ]);
    // A shape's folder importing another's breaks it too.
    expect(
      shapeRuleBreaches(
        new Map([
          [
            'shapes/ai-sdk/planted.ts',
            { text: "import { x } from '../openai-chat/dialect.js';\n", imports: ['shapes/openai-chat/dialect.ts'] },
          ],
        ]),
        formats,
      ),
    ).toEqual(['shapes/ai-sdk/planted.ts:1: imports shapes/openai-chat/dialect.ts']);
    // And one importing code above the shapes (the engine).
    expect(
      shapeRuleBreaches(
        new Map([
          ['shapes/gemini/planted.ts', { text: "import { ForkEngine } from '../../engine/engine.js';\n", imports: ['engine/engine.ts'] }],
        ]),
        formats,
      ),
    ).toEqual(["shapes/gemini/planted.ts:1: a shape's folder imports engine/engine.ts, above it"]);
  });
});

/*
 * Folders in a ladder: no folder of src/ imports a folder that imports it back, directly or around
 * a circle (type imports and import() included). The entry points at src/'s root stand above all.
 */

/** The folder of src/ a module sits in ('' for the entry points at its root). */
const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? (parts[0] as string) : '';
};

/** For each pair of folders with an import between them, one import that makes the edge (for the message). */
function folderEdges(graph: ReadonlyMap<string, readonly string[]>): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    for (const target of targets) {
      const to = folderOf(target);
      if (from === to || from === '' || !graph.has(target)) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${relative(SRC, file)} imports ${relative(SRC, target)}`);
      edges.set(from, out);
    }
  }
  return edges;
}

/** A circle of folders, each step named by the import that makes it; undefined when they form a ladder. */
function folderCircle(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] | undefined {
  const graph = new Map([...edges].map(([from, out]) => [from, [...out.keys()]]));
  const cycle = findCycle(graph);
  if (cycle === undefined) return undefined;
  return cycle.slice(0, -1).map((from, i) => `${from} → ${cycle[i + 1]} (${edges.get(from)?.get(cycle[i + 1] as string)})`);
}

describe('the folders of src/ form a ladder', () => {
  it('no folder imports a folder that imports it back, directly or around a circle', () => {
    const graph = new Map(modules(SRC).map((file) => [file, everyImportOf(file)]));
    expect(folderCircle(folderEdges(graph))).toBeUndefined();
  });

  it('would see a circle: a planted one is named edge by edge', () => {
    const file = (path: string): string => join(SRC, path);
    const graph = new Map([
      [file('a/x.ts'), [file('b/y.ts')]],
      [file('b/y.ts'), [file('c/z.ts')]],
      [file('c/z.ts'), [file('a/x.ts')]],
    ]);
    expect(folderCircle(folderEdges(graph))).toEqual([
      'a → b (a/x.ts imports b/y.ts)',
      'b → c (b/y.ts imports c/z.ts)',
      'c → a (c/z.ts imports a/x.ts)',
    ]);
  });
});
