import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from './define.js';

/**
 * True for a tool made by defineTool. Checked structurally, not by identity: a user's module may
 * import its own copy of forkpool (or of zod), so instanceof-style checks would reject good tools.
 */
export function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const params = v.parameters as { safeParse?: unknown } | null | undefined;
  const decl = v.declaration as Record<string, unknown> | null | undefined;
  return (
    typeof v.name === 'string' &&
    typeof v.description === 'string' &&
    typeof v.execute === 'function' &&
    typeof params === 'object' &&
    params !== null &&
    typeof params.safeParse === 'function' &&
    typeof decl === 'object' &&
    decl !== null &&
    decl.name === v.name &&
    typeof decl.parametersJsonSchema === 'object' &&
    (v.approval === 'never' || v.approval === 'required') &&
    typeof v.interactive === 'boolean'
  );
}

/** Something that was probably meant as a tool: worth an error rather than being silently ignored. */
function looksLikeToolAttempt(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.execute === 'function' || ('name' in v && 'parameters' in v);
}

/**
 * Loads user tools from a JS module (or TS, when the process runs under tsx or vitest).
 * Accepted shapes: `export default [tool, ...]`, `export default tool`, and named exports that are tools.
 * The same tool exported twice (default and named) counts once; two tools with one name is an error.
 */
export async function loadToolsModule(file: string): Promise<Tool[]> {
  const abs = path.resolve(file);
  const where = `tools module ${JSON.stringify(file)}`;
  const st = await stat(abs).catch(() => undefined);
  if (st === undefined) throw new Error(`${where}: file not found (looked at ${abs})`);
  if (!st.isFile()) throw new Error(`${where}: not a file (${abs})`);

  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${where}: import failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }

  const found: { exportName: string; tool: Tool }[] = [];
  // The default export first: a namespace lists its keys alphabetically, and the default array's order is the author's.
  if ('default' in mod) found.push(...fromDefault(where, mod.default));
  for (const [exportName, value] of Object.entries(mod)) {
    if (exportName === 'default') continue;
    if (isTool(value)) found.push({ exportName, tool: value });
    else if (looksLikeToolAttempt(value)) {
      throw new Error(`${where}: export "${exportName}" is not a tool made by defineTool (it needs name, description, parameters with safeParse, declaration, execute)`);
    }
  }
  return dedupe(where, found);
}

function fromDefault(where: string, value: unknown): { exportName: string; tool: Tool }[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, i) => {
    const exportName = Array.isArray(value) ? `default[${i}]` : 'default';
    if (!isTool(item)) {
      throw new Error(`${where}: export ${exportName} is not a tool made by defineTool (got ${describe(item)})`);
    }
    return { exportName, tool: item };
  });
}

function dedupe(where: string, found: { exportName: string; tool: Tool }[]): Tool[] {
  const byName = new Map<string, { exportName: string; tool: Tool }>();
  for (const entry of found) {
    const seen = byName.get(entry.tool.name);
    if (seen === undefined) byName.set(entry.tool.name, entry);
    else if (seen.tool !== entry.tool) {
      throw new Error(`${where}: duplicate tool name "${entry.tool.name}" (exports ${seen.exportName} and ${entry.exportName})`);
    }
  }
  if (byName.size === 0) {
    throw new Error(`${where}: exports no tools; use export default [tool, ...], export default tool, or named exports made with defineTool`);
  }
  return [...byName.values()].map((e) => e.tool);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { name?: unknown }).name;
    return typeof name === 'string' ? `an object named ${JSON.stringify(name)}` : 'an object';
  }
  return typeof value;
}
