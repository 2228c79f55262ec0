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

/** The tool names defineTool accepts (Gemini function names); hand-made tools must follow them too. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Default bound on importing a tools module: a top-level await that never settles must not hang a run. */
const DEFAULT_IMPORT_TIMEOUT_MS = 60_000;

export interface LoadToolsOptions {
  /** Give up importing after this many ms (default 60 s). */
  importTimeoutMs?: number;
}

/**
 * Loads user tools from a JS module (or TS, when the process runs under tsx or vitest).
 * Accepted shapes: `export default [tool, ...]`, `export default tool`, and named exports that are tools.
 * The same tool exported twice (default and named) counts once; two tools with one name is an error.
 * Whatever the module does (throws anything, exports throwing getters or Proxies, never finishes
 * importing), the result is a tool list or an Error naming the module.
 */
export async function loadToolsModule(file: string, options: LoadToolsOptions = {}): Promise<Tool[]> {
  const abs = path.resolve(file);
  const where = `tools module ${JSON.stringify(file)}`;
  const st = await stat(abs).catch(() => undefined);
  if (st === undefined) throw new Error(`${where}: file not found (looked at ${abs})`);
  if (!st.isFile()) throw new Error(`${where}: not a file (${abs})`);

  const mod = await importBounded(where, pathToFileURL(abs).href, options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS);

  const found: { exportName: string; tool: Tool }[] = [];
  // The default export first: a namespace lists its keys alphabetically, and the default array's order is the author's.
  if ('default' in mod) found.push(...inspect(where, 'export default', () => fromDefault(where, mod.default)));
  for (const [exportName, value] of Object.entries(mod)) {
    if (exportName === 'default') continue;
    const label = `export "${exportName}"`;
    if (inspect(where, label, () => isTool(value))) found.push({ exportName, tool: checkName(where, label, value as Tool) });
    else if (inspect(where, label, () => looksLikeToolAttempt(value))) {
      throw new Error(
        `${where}: ${label} is not a tool made by defineTool (it needs name, description, parameters with safeParse, declaration, execute)`,
      );
    }
  }
  // A cpu tool's thread loads it again from here, unless it named its module itself.
  return dedupe(where, found).map((tool) =>
    tool.cpu === true && tool.module === undefined ? Object.freeze({ ...tool, module: pathToFileURL(abs).href }) : tool,
  );
}

async function importBounded(where: string, url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${where}: import did not finish within ${timeoutMs} ms (a top-level await that never settles?)`)),
      timeoutMs,
    );
  });
  try {
    return (await Promise.race([import(url), timeout])) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(`${where}: import did not finish`)) throw err;
    throw new Error(`${where}: import failed: ${messageOf(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a check on a value the module exported; a getter or Proxy trap that throws becomes a named error. */
function inspect<T>(where: string, label: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(`${where}: `)) throw err;
    throw new Error(`${where}: ${label} cannot be inspected (reading it threw: ${messageOf(err)})`, { cause: err });
  }
}

function checkName(where: string, label: string, tool: Tool): Tool {
  if (!TOOL_NAME.test(tool.name)) {
    throw new Error(
      `${where}: ${label}: tool name ${JSON.stringify(tool.name.length > 80 ? `${tool.name.slice(0, 80)}…` : tool.name)} is not a valid function name (it must start with a letter or underscore and hold at most 64 letters, digits, _ . -)`,
    );
  }
  return tool;
}

/** A thrown value as text, whatever it is (an Error, a string, an object whose toString throws). */
function messageOf(err: unknown): string {
  try {
    if (err instanceof Error) return err.message;
    return String(err);
  } catch {
    return `a thrown ${err === null ? 'null' : typeof err} that cannot be printed`;
  }
}

function fromDefault(where: string, value: unknown): { exportName: string; tool: Tool }[] {
  const isArray = Array.isArray(value);
  const items: unknown[] = isArray ? Array.from(value as unknown[]) : [value];
  return items.map((item, i) => {
    const exportName = isArray ? `default[${i}]` : 'default';
    const label = `export ${exportName}`;
    if (!inspect(where, label, () => isTool(item))) {
      throw new Error(`${where}: ${label} is not a tool made by defineTool (got ${inspect(where, label, () => describe(item))})`);
    }
    return { exportName, tool: checkName(where, label, item as Tool) };
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
    throw new Error(
      `${where}: exports no tools; use export default [tool, ...], export default tool, or named exports made with defineTool`,
    );
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
