import { z } from 'zod';
import { optionDocs } from './option-doc.js';
import { ENGINE_OPTION_FLAGS } from './option-flags.js';
import { declaredAt, defaultOf, leafAt, type OptionDefault, valuesOf } from './option-read.js';
import { EngineOptionsSchema, FanOutOptionsSchema, RunForkOptionsSchema } from './option-schema.js';

/** The tables of docs/options.md, one per option group, as the schemas declare them. */
export function optionTables(): string {
  const groups: [string, string, z.ZodObject, string[]][] = [
    ['Engine options', '`ForkEngine.create(options)`', EngineOptionsSchema, []],
    ['Fan-out options', '`engine.fanOut(prefix, tasks, options)`', FanOutOptionsSchema, []],
    ['Single-fork options', '`engine.runFork(prefix, task, options)`', RunForkOptionsSchema, []],
  ];
  const flagOf = new Map<string, string>(Object.entries(ENGINE_OPTION_FLAGS).map(([flag, f]) => [f.option.join('.'), flag]));
  const out: string[] = [];
  for (const [title, where, schema] of groups) {
    out.push(
      `## ${title}`,
      '',
      `${where}. A misspelt option is an error naming it.`,
      '',
      '| Option | Value | Default | CLI flag | What it does |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const path of pathsOf(schema)) {
      const declared = declaredAt(schema, path);
      const doc = optionDocs.get(declared);
      if (doc === undefined) continue;
      const flag = flagOf.get(path.join('.'));
      const cells = [
        `\`${path.join('.')}\``,
        valueText(schema, path),
        defaultText(defaultOf(schema, path)),
        flag === undefined ? '' : `\`--${flag}\``,
        doc.description,
      ];
      out.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** Every option path of a group, nested objects' fields after their object. */
function pathsOf(schema: z.ZodObject, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  for (const key of Object.keys(schema.shape)) {
    const path = [...prefix, key];
    paths.push(path);
    const inner = leafAt(schema, [key]);
    if (inner instanceof z.ZodObject && key !== 'prices') paths.push(...pathsOf(inner, path));
  }
  return paths;
}

function valueText(schema: z.ZodObject, path: readonly string[]): string {
  const said = optionDocs.get(declaredAt(schema, path))?.valueText;
  if (said !== undefined) return said;
  const v = valuesOf(schema, path);
  switch (v.kind) {
    case 'enum':
      return v.values.map((s) => `\`'${s}'\``).join(', ');
    case 'integer':
      return `integer ≥ ${v.min}${v.max !== undefined ? `, ≤ ${v.max}` : ''}`;
    case 'number':
      return 'number > 0';
    case 'boolean':
      return 'boolean';
    case 'other': {
      const leaf = leafAt(schema, path);
      if (leaf instanceof z.ZodObject) return 'object';
      if (leaf instanceof z.ZodString) return `non-empty string${declaredAt(schema, path).safeParse(null).success ? ', or null' : ''}`;
      return '';
    }
  }
}

function defaultText(d: OptionDefault): string {
  if (d === undefined) return '';
  return 'text' in d ? d.text : `\`${typeof d.value === 'string' ? `'${d.value}'` : String(d.value)}\``;
}
