import type { z } from 'zod';
import { FORK_SUBAGENT_TYPE, requestedSubagentType } from '../fork/agent-tool.js';
import { FORK_SPAWN_ERROR, NESTED_FORK_ERROR, SUBAGENT_DEPTH_ERROR } from '../wording/constants.js';
import { TASK_CONTROL_REFUSED, TASK_CONTROL_TOOLS } from '../fork/task-tools.js';
import { allowsTool } from '../session/tool-allowlist.js';
import type { SubagentType } from '../session/schema.js';
import { runInThread } from './cpu-thread.js';
import type { Tool, ToolContext } from './define.js';
import type { ToolCall } from './call.js';
import { fail, reject, succeed, type ToolOutcome } from './outcome.js';

export type { ToolCall } from './call.js';

export type { ToolOutcome } from './outcome.js';

/** What one fork may do with tools. */
export interface ForkToolPolicy {
  forkId: string;
  /** The task's allowlist: exact names and MCP forms (src/session/tool-allowlist.ts); undefined = every declared tool. */
  allowedTools?: readonly string[];
  /** Names the prefix declares to the model. */
  declaredTools: ReadonlySet<string>;
  /** Names of tools that would start another agent: always refused in a fork. */
  spawnTools: ReadonlySet<string>;
  /** The caller is the main session (a parent loop), not a fork: it may run main-session-only tools. */
  mainSession?: boolean;
  /** What kind of sub-agent the caller is (default: a fork). */
  subagentType?: SubagentType;
}

export interface ToolHost {
  execute(call: ToolCall, policy: ForkToolPolicy, signal: AbortSignal): Promise<ToolOutcome>;
  /** The longest any call can take before its own timeout answers it (the worker's RPC bound). */
  readonly longestTimeoutMs: number;
  /** This host with more tools (a fan-out's own: an agent framework's tools); of two with one name, the added one. */
  with(tools: readonly Tool[]): ToolHost;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * The main thread's tool executor. Every check happens before execution, in the order a
 * reviewer would ask: may a fork do this at all, is it this fork's to call, are the args right.
 */
export function createToolHost(tools: readonly Tool[], defaultTimeoutMs = DEFAULT_TOOL_TIMEOUT_MS): ToolHost {
  for (const tool of tools) {
    if (tool.cpu && tool.module === undefined) {
      throw new TypeError(
        `tool ${JSON.stringify(tool.name)} is cpu: true but names no module: pass module: import.meta.url to defineTool, or load it with loadToolsModule`,
      );
    }
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    with: (added) => createToolHost([...tools, ...added], defaultTimeoutMs),
    longestTimeoutMs: Math.max(defaultTimeoutMs, ...tools.map((t) => t.timeoutMs ?? defaultTimeoutMs)),
    async execute(call, policy, signal) {
      const rejection = check(call, policy, byName);
      if (rejection) return rejection;
      const tool = byName.get(call.name) as Tool;
      if (call.argsError !== undefined)
        return reject('invalid_args', `Invalid arguments for ${tool.name}: ${call.argsError}. Fix them and call again.`);
      const parsed = tool.parameters.safeParse(call.args ?? {});
      if (!parsed.success) {
        return reject(
          'invalid_args',
          `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}. Fix them and call again.`,
        );
      }
      const timeoutMs = tool.timeoutMs ?? defaultTimeoutMs;
      if (tool.cpu) return runInThread(tool, parsed.data, policy.forkId, signal, timeoutMs);
      return run(tool, parsed.data, { forkId: policy.forkId, ...(call.id !== undefined ? { callId: call.id } : {}) }, signal, timeoutMs);
    },
  };
}

function check(call: ToolCall, policy: ForkToolPolicy, byName: ReadonlyMap<string, Tool>): ToolOutcome | undefined {
  if (policy.spawnTools.has(call.name)) {
    const wantsFork = requestedSubagentType(call.args) === FORK_SUBAGENT_TYPE;
    // The reference's words: a fork asked for, a fork asking, a general-purpose sub-agent asking.
    const answer = wantsFork ? NESTED_FORK_ERROR : policy.subagentType === 'general-purpose' ? SUBAGENT_DEPTH_ERROR : FORK_SPAWN_ERROR;
    return reject('spawn_refused', answer);
  }
  if (TASK_CONTROL_TOOLS.has(call.name) && policy.mainSession !== true) return reject('spawn_refused', TASK_CONTROL_REFUSED(call.name));
  const allowed = allowedNames(policy, byName);
  if (!policy.declaredTools.has(call.name)) {
    return reject('not_declared', `Tool ${call.name} is not declared. ${listAllowed(allowed)}`);
  }
  if (policy.allowedTools !== undefined && !allowsTool(policy.allowedTools, call.name)) {
    return reject('not_allowed', `Tool ${call.name} is not allowed in this fork. ${listAllowed(allowed)}`);
  }
  const tool = byName.get(call.name);
  if (!tool) {
    return reject('not_declared', `Tool ${call.name} is declared but has no implementation on this host. ${listAllowed(allowed)}`);
  }
  if (tool.forks === false && policy.mainSession !== true) {
    return reject(
      'main_session_only',
      `${tool.name} can only be executed by the main session, not by a fork or sub-agent. Do without it, and say in your report if it was needed.`,
    );
  }
  if (tool.interactive) {
    return reject(
      'interactive',
      `${tool.name} asks the user a question, and a background fork cannot ask anything. Decide without it and say so in your report.`,
    );
  }
  if (tool.approval === 'required') {
    return reject(
      'approval_required',
      `${tool.name} needs a person's approval, and background agents cannot prompt for it. Do the work without it, or report that it is needed.`,
    );
  }
  return undefined;
}

function allowedNames(policy: ForkToolPolicy, byName: ReadonlyMap<string, Tool>): string[] {
  return [...policy.declaredTools].filter(
    (name) =>
      byName.has(name) &&
      !policy.spawnTools.has(name) &&
      (!TASK_CONTROL_TOOLS.has(name) || policy.mainSession === true) &&
      (policy.allowedTools === undefined || allowsTool(policy.allowedTools, name)) &&
      byName.get(name)?.approval !== 'required' &&
      (byName.get(name)?.forks !== false || policy.mainSession === true) &&
      !byName.get(name)?.interactive,
  );
}

const MAX_LISTED = 20;

function listAllowed(names: readonly string[]): string {
  if (names.length === 0) return 'This fork may not execute any tool.';
  const shown = names.slice(0, MAX_LISTED).join(', ');
  const more = names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : '';
  return `Tools you may call: ${shown}${more}.`;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(args)'}: ${i.message}`)
    .join('; ');
}

async function run(
  tool: Tool,
  args: unknown,
  caller: Omit<ToolContext, 'signal'>,
  outer: AbortSignal,
  timeoutMs: number,
): Promise<ToolOutcome> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      // Settle as a timeout first: aborting settles the `aborted` race entry synchronously.
      resolve(fail('timeout', `${tool.name} did not finish within ${timeoutMs} ms.`));
      controller.abort(new Error('tool timeout'));
    }, timeoutMs);
  });
  const aborted = new Promise<ToolOutcome>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(fail('aborted', `${tool.name} was cancelled.`)), { once: true });
  });
  const execution = (async (): Promise<ToolOutcome> => {
    try {
      return succeed(tool.name, await tool.execute(args, { ...caller, signal: controller.signal }));
    } catch (err) {
      return fail('threw', `${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  })();
  try {
    return await Promise.race([execution, timeout, aborted]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  }
}
