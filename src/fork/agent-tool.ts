import { z } from 'zod';
import type { FunctionDeclaration } from '../tools/define.js';
import type { ForkTurns } from '../session/schema.js';

export const AGENT_TOOL_NAME = 'agent';
export const FORK_SUBAGENT_TYPE = 'fork';

/** The Agent tool's parameters as the model sees them; the rules between them are in validateAgentParams. */
export const AgentParamsSchema = z.strictObject({
  description: z.string().describe('A short summary (3 to 5 words) of what the sub-agent will do.'),
  prompt: z
    .string()
    .describe(
      'The task. For a fork this is a directive: say what to do, not the background, since the fork already sees this ' +
        'conversation. When fork_turns limits the history, include any older context the fork will not see.',
    ),
  subagent_type: z
    .string()
    .optional()
    .describe('"fork" starts a fork that inherits this conversation and its prompt cache; another name selects a fresh sub-agent of that type.'),
  run_in_background: z.boolean().optional().describe('Run without waiting for the result (forks always run in the background in non-interactive runs).'),
  fork_turns: z
    .string()
    .optional()
    .describe('Fork only: "all" (the default) or a positive integer as a string, e.g. "2": inherit only the last N user turns.'),
  fork_tools: z
    .array(z.string())
    .optional()
    .describe('Fork only: exact names of the tools the fork may execute (no wildcards); an empty list allows none.'),
  model: z.string().optional().describe('Model for a non-fork sub-agent. A fork always uses this conversation\'s model.'),
  isolation: z.string().optional().describe('Non-fork sub-agents only: run in an isolated workspace, e.g. "worktree".'),
  working_dir: z.string().optional().describe('Non-fork sub-agents only: the directory the sub-agent works in.'),
});

export type AgentParams = z.output<typeof AgentParamsSchema>;

function declaration(): FunctionDeclaration {
  const { $schema: _dialect, ...parametersJsonSchema } = z.toJSONSchema(AgentParamsSchema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return {
    name: AGENT_TOOL_NAME,
    description:
      'Start a sub-agent for a self-contained task. With subagent_type "fork" the sub-agent is a fork of this ' +
      'conversation: it sees everything so far, shares the prompt cache, works in the background, and its result ' +
      'arrives later as a <task-notification>. Several forks can run at once: call this tool once per task.',
    parametersJsonSchema,
  };
}

export const AGENT_TOOL_DECLARATION: FunctionDeclaration = declaration();

export interface AgentCallContext {
  /** The caller is a fork: it may not start sub-agents at all. */
  insideFork?: boolean;
  /** The caller is a (non-fork) sub-agent: it may not start forks or background runs. */
  insideSubagent?: boolean;
  /** Non-interactive run: a fork always runs in the background, whatever run_in_background says. */
  headless?: boolean;
}

/** What seedFork needs for a fork request. */
export interface ForkRequest {
  forkTurns: ForkTurns;
  allowedTools?: string[];
}

export type AgentParamsResult =
  | { ok: true; params: AgentParams; fork: ForkRequest | undefined; runInBackground: boolean }
  | { ok: false; error: string };

const KNOWN = Object.keys(AgentParamsSchema.shape);
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/**
 * Checks an Agent-tool call. Every broken rule is reported (one per line, each naming its
 * parameter), so the model can fix them all in one retry.
 */
export function validateAgentParams(input: unknown, ctx: AgentCallContext = {}): AgentParamsResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: 'the agent tool takes an object of parameters ({ "description", "prompt", … })' };
  }
  const raw = input as Record<string, unknown>;
  const errors: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN.includes(key)) errors.push(`${key}: is not a parameter of the agent tool (known: ${KNOWN.join(', ')})`);
  }
  const text = (key: string, required: boolean): string | undefined => {
    const value = raw[key];
    if (value === undefined) {
      if (required) errors.push(`${key}: is required`);
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      errors.push(`${key}: must be a non-empty string`);
      return undefined;
    }
    return value;
  };
  const description = text('description', true);
  const prompt = text('prompt', true);
  const subagentType = text('subagent_type', false);
  const model = text('model', false);
  const isolation = text('isolation', false);
  const workingDir = text('working_dir', false);
  const forkTurnsText = text('fork_turns', false);
  const background = raw.run_in_background;
  if (background !== undefined && typeof background !== 'boolean') errors.push('run_in_background: must be true or false');

  const isFork = subagentType?.trim().toLowerCase() === FORK_SUBAGENT_TYPE;
  const explicitNonFork = subagentType !== undefined && !isFork;

  let forkTurns: ForkTurns = 'all';
  if (raw.fork_turns !== undefined && !isFork) errors.push('fork_turns: can only be used with subagent_type "fork"');
  if (forkTurnsText !== undefined) {
    if (forkTurnsText === 'all') forkTurns = 'all';
    else if (POSITIVE_INTEGER.test(forkTurnsText) && Number.isSafeInteger(Number(forkTurnsText))) forkTurns = Number(forkTurnsText);
    else errors.push(`fork_turns: must be "all" or a positive integer written as a string (e.g. "2"), not ${JSON.stringify(forkTurnsText)}`);
  }

  if (raw.fork_tools !== undefined && !isFork) errors.push('fork_tools: can only be used with subagent_type "fork"');
  const allowedTools = raw.fork_tools === undefined ? undefined : checkToolNames(raw.fork_tools, errors);

  if (model !== undefined && isFork) {
    errors.push(
      'model: cannot be combined with subagent_type "fork": a fork always uses this conversation\'s model, because another model cannot read its prompt cache',
    );
  }
  for (const [key, value] of [['isolation', raw.isolation], ['working_dir', raw.working_dir]] as const) {
    if (value !== undefined && !explicitNonFork) {
      errors.push(
        `${key}: needs an explicit subagent_type other than "fork" (a fork shares this conversation's workspace)`,
      );
    }
  }

  const nested = ctx.insideFork === true || ctx.insideSubagent === true;
  if (ctx.insideFork === true && !isFork) {
    errors.push('agent: a fork cannot start sub-agents; do this work yourself with your own tools');
  }
  if (nested && isFork) {
    errors.push(
      'subagent_type: "fork" is not available inside a sub-agent; complete the task directly with your own tools instead of requesting a nested fork',
    );
  }
  if (nested && background === true) {
    errors.push('run_in_background: background runs cannot be started from inside a sub-agent');
  }

  if (errors.length > 0 || description === undefined || prompt === undefined) {
    return { ok: false, error: errors.join('\n') };
  }
  const params: AgentParams = { description, prompt };
  if (subagentType !== undefined) params.subagent_type = isFork ? FORK_SUBAGENT_TYPE : subagentType;
  if (typeof background === 'boolean') params.run_in_background = background;
  if (forkTurnsText !== undefined) params.fork_turns = forkTurnsText;
  if (allowedTools !== undefined) params.fork_tools = allowedTools;
  if (model !== undefined) params.model = model;
  if (isolation !== undefined) params.isolation = isolation;
  if (workingDir !== undefined) params.working_dir = workingDir;

  // A fork is detached by definition; headless runs force it so a short-lived process keeps its work.
  const runInBackground = isFork ? (ctx.headless === true ? true : (params.run_in_background ?? true)) : (params.run_in_background ?? false);
  const fork: ForkRequest | undefined = isFork
    ? { forkTurns, ...(allowedTools !== undefined ? { allowedTools } : {}) }
    : undefined;
  return { ok: true, params, fork, runInBackground };
}

function checkToolNames(value: unknown, errors: string[]): string[] | undefined {
  if (!Array.isArray(value)) {
    errors.push('fork_tools: must be an array of exact tool names');
    return undefined;
  }
  const before = errors.length;
  value.forEach((name: unknown, i) => {
    if (typeof name !== 'string' || name === '') errors.push(`fork_tools[${i}]: must be a non-empty tool name`);
    else if (name.trim() !== name) errors.push(`fork_tools[${i}]: ${JSON.stringify(name)} must not have surrounding whitespace`);
    else if (name.includes('*')) errors.push(`fork_tools[${i}]: ${JSON.stringify(name)}: wildcards are not supported, list exact tool names`);
  });
  return errors.length === before ? (value as string[]).slice() : undefined;
}
