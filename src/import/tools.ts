import { dialectOf, viewMessage, type AnyMessage } from '../shapes/index.js';
import type { ParentSession } from '../shapes/registry.js';
import type { FunctionDeclaration, Tool } from '../tools/define.js';
import { globTool } from '../tools/workspace/glob-tool.js';
import { grepTool } from '../tools/workspace/grep.js';
import { resolveLimits } from '../tools/workspace/limits.js';
import { listDirTool } from '../tools/workspace/list-dir.js';
import { readFileTool } from '../tools/workspace/read-file.js';
import type { DeclaredTool, ImportFormat, ImportSummary } from './summary.js';

/*
 * Tool declarations for an imported conversation. Transcripts rarely record them; they come,
 * per tool the conversation calls, from:
 * 1. the source itself, when it recorded them (a request body's `tools`): kept as recorded;
 * 2. `--tools MODULE` (every tool of the module is declared, in the session's shape);
 * 3. forkpool's workspace tools, for a Gemini CLI or Qwen Code tool that maps to one by name and
 *    arguments (the table below; every recorded call of it must map). Its calls and results are
 *    then rewritten to the workspace tool's name and arguments, so the history and the
 *    declarations agree and a fork run with --workspace can call it again;
 * 4. otherwise it stays undeclared, its calls kept as recorded, and the summary says so.
 * Paths are kept as recorded (Gemini CLI and Qwen Code pass absolute paths): forkpool's tools
 * take an absolute path inside the workspace root, so run the forks with --workspace at the
 * project the agent worked in.
 */

type Args = Record<string, unknown>;
type Mapped = { args: Args } | { why: string };

interface WorkspaceMapping {
  target: 'read_file' | 'list_dir' | 'glob' | 'grep';
  /** How the arguments map, in words (README and summary). */
  how: string;
  map(args: Args): Mapped;
}

const given = (value: unknown) => value !== undefined && value !== null;

/** Reads `args` by the table `from`: target key ← first given source key; anything else given has no counterpart. */
function mapArgs(args: Args, target: string, from: Record<string, readonly string[]>, ignoredWhenEmpty: readonly string[] = []): Mapped {
  const out: Args = {};
  const used = new Set<string>();
  for (const [to, sources] of Object.entries(from)) {
    const present = sources.filter((key) => given(args[key]));
    if (present.length > 1) return { why: `a call gives both ${present.map((k) => `"${k}"`).join(' and ')}` };
    for (const key of sources) used.add(key);
    if (present[0] !== undefined) out[to] = args[present[0]];
  }
  for (const [key, value] of Object.entries(args)) {
    if (used.has(key) || !given(value)) continue;
    if (ignoredWhenEmpty.includes(key) && Array.isArray(value) && value.length === 0) continue;
    return { why: `a call's argument "${key}" has no counterpart in forkpool's ${target}` };
  }
  return { args: out };
}

/** Gemini CLI's and Qwen Code's read-only tools that forkpool's workspace tools can stand for. */
const WORKSPACE_MAPPINGS: Readonly<Record<string, WorkspaceMapping>> = {
  read_file: {
    target: 'read_file',
    how: 'file_path (or absolute_path) → path; offset (0-based) → offset + 1 (1-based), limit → limit; or start_line → offset, end_line → limit (end_line − start_line + 1)',
    map(args) {
      const mapped = mapArgs(args, 'read_file', {
        path: ['file_path', 'absolute_path'],
        offset: ['offset'],
        limit: ['limit'],
        start: ['start_line'],
        end: ['end_line'],
      });
      if ('why' in mapped) return mapped;
      const { path, offset, limit, start, end } = mapped.args;
      if (typeof path !== 'string' || path === '') return { why: 'a call has no file_path' };
      const isLine = (n: unknown, min: number) => Number.isInteger(n) && (n as number) >= min;
      if (start !== undefined || end !== undefined) {
        // Gemini CLI's current read_file: a 1-based, inclusive line range.
        if (offset !== undefined || limit !== undefined) return { why: 'a call gives both offset/limit and start_line/end_line' };
        if (start !== undefined && !isLine(start, 1)) return { why: 'a call\'s "start_line" is not a line number' };
        if (end !== undefined && !isLine(end, 1)) return { why: 'a call\'s "end_line" is not a line number' };
        const from = (start as number | undefined) ?? 1;
        if (end !== undefined && (end as number) < from) return { why: 'a call\'s "end_line" is before its "start_line"' };
        return {
          args: {
            path,
            ...(start !== undefined ? { offset: from } : {}),
            ...(end !== undefined ? { limit: (end as number) - from + 1 } : {}),
          },
        };
      }
      if (offset !== undefined && !isLine(offset, 0)) return { why: 'a call\'s "offset" is not a line number' };
      if (limit !== undefined && !isLine(limit, 1)) return { why: 'a call\'s "limit" is not a positive integer' };
      return {
        args: { path, ...(offset !== undefined ? { offset: (offset as number) + 1 } : {}), ...(limit !== undefined ? { limit } : {}) },
      };
    },
  },
  list_directory: {
    target: 'list_dir',
    how: 'dir_path (or path) → path; an "ignore" list or file-filtering options have no counterpart',
    map(args) {
      const mapped = mapArgs(args, 'list_dir', { path: ['dir_path', 'path'] }, ['ignore']);
      if ('why' in mapped) return mapped;
      if (mapped.args.path !== undefined && typeof mapped.args.path !== 'string') return { why: "a call's path is not a string" };
      return mapped;
    },
  },
  glob: {
    target: 'glob',
    how: "pattern → pattern; only calls without dir_path or path map (forkpool's glob matches paths relative to the workspace root)",
    map(args) {
      const mapped = mapArgs(args, 'glob', { pattern: ['pattern'] });
      if ('why' in mapped) return mapped;
      if (typeof mapped.args.pattern !== 'string' || mapped.args.pattern === '') return { why: 'a call has no pattern' };
      return mapped;
    },
  },
  grep_search: {
    target: 'grep',
    how: 'pattern → pattern, dir_path (or path) → path, include (or include_pattern, or glob) → glob, limit → maxResults',
    map(args) {
      const mapped = mapArgs(args, 'grep', {
        pattern: ['pattern'],
        path: ['dir_path', 'path'],
        glob: ['include', 'include_pattern', 'glob'],
        maxResults: ['limit'],
      });
      if ('why' in mapped) return mapped;
      if (typeof mapped.args.pattern !== 'string' || mapped.args.pattern === '') return { why: 'a call has no pattern' };
      return mapped;
    },
  },
};

/** The workspace tools' declarations (the tools themselves need a root to run; declaring needs none). */
function workspaceDeclaration(name: WorkspaceMapping['target']): FunctionDeclaration {
  const limits = resolveLimits();
  const make = { read_file: readFileTool, list_dir: listDirTool, glob: globTool, grep: grepTool }[name];
  return (make('/', limits) as Tool).declaration;
}

type Part = Record<string, unknown>;

/** A session's messages, whatever its shape: history, messages, or input items (a string input is one user message). */
export function messagesOf(session: Record<string, unknown>): AnyMessage[] {
  const { history, messages, input } = session;
  if (Array.isArray(history)) return history as AnyMessage[];
  if (Array.isArray(messages)) return messages as AnyMessage[];
  if (Array.isArray(input)) return input as AnyMessage[];
  return typeof input === 'string' ? [{ role: 'user', content: input } as AnyMessage] : [];
}

function recordedNames(session: Record<string, unknown>): string[] {
  const tools = session.tools;
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools as Record<string, unknown>[]) {
    if (Array.isArray(tool?.functionDeclarations))
      for (const d of tool.functionDeclarations as { name?: unknown }[]) names.push(String(d.name));
    else if (tool?.function && typeof tool.function === 'object') names.push(String((tool.function as { name?: unknown }).name));
    else if (typeof tool?.name === 'string') names.push(tool.name);
  }
  return names;
}

function callCounts(session: Record<string, unknown>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messagesOf(session))
    for (const call of viewMessage(message).calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  return counts;
}

export interface ToolsOutcome {
  declared: DeclaredTool[];
  undeclared: ImportSummary['undeclared'];
  toolsUsed: ImportSummary['toolsUsed'];
}

/**
 * Settles the session's tools (it is changed in place: `tools` set, mapped calls rewritten).
 * `session` must already be in its shape with its model set (the dialect is chosen by its format).
 */
export function settleTools(session: Record<string, unknown>, format: ImportFormat, moduleTools: readonly Tool[] = []): ToolsOutcome {
  const declared: DeclaredTool[] = [];
  const recorded = recordedNames(session);
  for (const name of recorded) declared.push({ name, from: 'recorded' });
  const declaredNames = new Set(recorded);
  const extra: FunctionDeclaration[] = [];
  for (const tool of moduleTools) {
    if (declaredNames.has(tool.name)) continue;
    declaredNames.add(tool.name);
    extra.push(tool.declaration);
    declared.push({ name: tool.name, from: 'module' });
  }

  const undeclared: ImportSummary['undeclared'] = [];
  const mappable = format === 'gemini-cli' || format === 'qwen-code';
  const renames = new Map<string, WorkspaceMapping>();
  for (const name of callCounts(session).keys()) {
    if (declaredNames.has(name)) continue;
    const mapping = mappable ? WORKSPACE_MAPPINGS[name] : undefined;
    if (mapping === undefined || !Object.hasOwn(WORKSPACE_MAPPINGS, name)) {
      undeclared.push({ name, why: 'no declaration recorded and none from --tools; forks see its calls but cannot call it' });
      continue;
    }
    const why = firstRefusal(session, name, mapping);
    if (why !== undefined) undeclared.push({ name, why: `does not map to forkpool's ${mapping.target}: ${why}` });
    else if (declaredNames.has(mapping.target))
      undeclared.push({ name, why: `forkpool's ${mapping.target} is declared already (from --tools)` });
    else {
      renames.set(name, mapping);
      declaredNames.add(mapping.target);
      extra.push(workspaceDeclaration(mapping.target));
      declared.push({ name: mapping.target, from: 'workspace', recordedAs: name, mapping: mapping.how });
    }
  }
  if (renames.size > 0) rewriteCalls(session, renames);
  if (extra.length > 0) addDeclarations(session, extra);
  const toolsUsed = [...callCounts(session)].map(([name, calls]) => ({ name, calls }));
  return { declared, undeclared, toolsUsed };
}

function firstRefusal(session: Record<string, unknown>, name: string, mapping: WorkspaceMapping): string | undefined {
  for (const content of session.history as { parts: Part[] }[]) {
    for (const part of content.parts) {
      const call = part.functionCall as { name?: unknown; args?: unknown } | undefined;
      if (call?.name !== name) continue;
      const mapped = mapping.map((call.args ?? {}) as Args);
      if ('why' in mapped) return mapped.why;
    }
  }
  return undefined;
}

/** Gemini history only (Gemini CLI and Qwen Code write Gemini Contents). */
function rewriteCalls(session: Record<string, unknown>, renames: ReadonlyMap<string, WorkspaceMapping>): void {
  session.history = (session.history as { role: string; parts: Part[] }[]).map((content) => {
    const named = (part: Part) => ((part.functionCall ?? part.functionResponse) as { name?: unknown } | undefined)?.name;
    if (!content.parts.some((part) => renames.has(named(part) as string))) return content;
    return {
      ...content,
      parts: content.parts.map((part) => {
        const call = part.functionCall as Record<string, unknown> | undefined;
        const response = part.functionResponse as Record<string, unknown> | undefined;
        if (call && renames.has(call.name as string)) {
          const mapping = renames.get(call.name as string) as WorkspaceMapping;
          const mapped = mapping.map((call.args ?? {}) as Args) as { args: Args };
          return {
            ...part,
            functionCall: Object.fromEntries(
              Object.entries(call).map(([k, v]) => [k, k === 'name' ? mapping.target : k === 'args' ? mapped.args : v]),
            ),
          };
        }
        if (response && renames.has(response.name as string)) {
          return { ...part, functionResponse: { ...response, name: (renames.get(response.name as string) as WorkspaceMapping).target } };
        }
        return part;
      }),
    };
  });
}

function addDeclarations(session: Record<string, unknown>, declarations: readonly FunctionDeclaration[]): void {
  const tools = Array.isArray(session.tools) ? [...session.tools] : [];
  if (Array.isArray(session.history)) tools.push({ functionDeclarations: declarations.map((d) => ({ ...d })) });
  else {
    const dialect = dialectOf(session as unknown as ParentSession);
    for (const declaration of declarations) tools.push(dialect.declareFunction(declaration));
  }
  session.tools = tools;
}
