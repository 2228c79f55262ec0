import { z } from 'zod';
import { failure, type Failure } from '../input/failure.js';
import { dialectFor, type ChatTool } from '../shapes/registry.js';
import { parametersJsonSchemaOf } from '../input/json-schema.js';
import type { FunctionDeclaration } from '../shapes/dialect.js';
import type { ForkTurns, SubagentType } from '../session/schema.js';
import { AGENT_TOOL_NAME, FORK_SPAWN_ERROR, FORK_SUBAGENT_TYPE, NESTED_FORK_ERROR } from '../wording/constants.js';
import { toolEntryRule } from '../session/tool-allowlist.js';

export { AGENT_TOOL_NAME, FORK_SUBAGENT_TYPE };
const GENERAL_PURPOSE_SUBAGENT_TYPE = 'general-purpose';

/** The Agent tool's parameters as the model sees them; the rules between them are in validateAgentParams. */
const AgentParamsSchema = z.strictObject({
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
    .describe(
      '"fork" starts a fork that inherits this conversation and its prompt cache. Omitted or "general-purpose": a fresh ' +
        'sub-agent that sees only the prompt.',
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Defaults to true for a sub-agent: its result arrives later as a <task-notification>. Set to false to run a ' +
        "general-purpose sub-agent in the foreground and get its result as this call's result. Forks always run in the background here.",
    ),
  name: z
    .string()
    .optional()
    .describe(
      'A short label for the task (one or two words, lowercase). As in the reference, a named sub-agent without run_in_background runs in the foreground.',
    ),
  fork_turns: z
    .union([z.string(), z.number().int().positive()])
    .optional()
    .describe('Fork only: "all" (the default) or a positive integer (2 or "2"): inherit only the last N user turns.'),
  fork_tools: z
    .array(z.string())
    .optional()
    .describe(
      'Fork only: the tools the fork may execute: exact names, "mcp__<server>" (every tool of that MCP server), ' +
        '"mcp__*" (every MCP tool) or "mcp__<server>__<prefix>*" (MCP tools whose names start so). ' +
        'Not "*": omit fork_tools for unrestricted execution. An empty list allows none.',
    ),
  model: z.string().optional().describe("Not for forks: a fork always uses this conversation's model."),
});

/** Parameters other agents offer that forkpool does not: named in the error, never silently ignored. */
const UNSUPPORTED: Record<string, string> = {
  isolation: 'isolation: is not supported: sub-agents run in this process and share its workspace',
  working_dir: "working_dir: is not supported: sub-agents share this process's working directory",
};

export type AgentParams = z.output<typeof AgentParamsSchema>;

function declaration(): FunctionDeclaration {
  const parametersJsonSchema = parametersJsonSchemaOf(AgentParamsSchema);
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

/** The agent tool as a Chat Completions function tool, for OpenAI-shaped conversations. */
export const AGENT_TOOL_FUNCTION: ChatTool = dialectFor('openai-chat').declareFunction(AGENT_TOOL_DECLARATION) as ChatTool;

/** The agent tool as an Anthropic tool (`input_schema`), for Anthropic-shaped conversations. */
export const AGENT_TOOL_ANTHROPIC: Readonly<Record<string, unknown>> = dialectFor('anthropic-messages').declareFunction(
  AGENT_TOOL_DECLARATION,
) as Readonly<Record<string, unknown>>;

export interface AgentCallContext {
  /** The caller is a fork (or the conversation is one): it may not start sub-agents at all. */
  insideFork?: boolean;
  /** The caller is a (non-fork) sub-agent: it may not start forks or background runs. */
  insideSubagent?: boolean;
}

/** What seedFork needs for a fork request. */
export interface ForkRequest {
  forkTurns: ForkTurns;
  allowedTools?: string[];
}

export type AgentParamsResult =
  | { ok: true; params: AgentParams; subagentType: SubagentType; fork: ForkRequest | undefined; runInBackground: boolean }
  | { ok: false; error: Failure<AgentParamsProblem> };

/** Why an agent call was refused: its parameters, or a fork asking for a fork (the reference's answers). */
export type AgentParamsProblem = 'invalid_params' | 'nested_fork' | 'fork_spawn';

const KNOWN = Object.keys(AgentParamsSchema.shape);
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
const FORK_TURNS_RULE = 'must be "all" or a positive integer (a number such as 2, or a string such as "2")';

/**
 * Checks an Agent-tool call. Every broken rule is reported (one per line, each naming its
 * parameter), so the model can fix them all in one retry.
 */
export function validateAgentParams(input: unknown, ctx: AgentCallContext = {}): AgentParamsResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: failure('invalid_params', 'the agent tool takes an object of parameters ({ "description", "prompt", … })') };
  }
  const raw = input as Record<string, unknown>;
  const type = requestedSubagentType(raw);
  // A sub-agent asking for a fork gets the reference's answer, whole and at once: never a downgrade.
  if ((ctx.insideFork === true || ctx.insideSubagent === true) && type === FORK_SUBAGENT_TYPE) {
    return { ok: false, error: failure('nested_fork', NESTED_FORK_ERROR) };
  }
  if (ctx.insideFork === true) return { ok: false, error: failure('fork_spawn', FORK_SPAWN_ERROR) };
  const errors: string[] = [];
  for (const key of Object.keys(raw)) {
    if (UNSUPPORTED[key] !== undefined) errors.push(UNSUPPORTED[key]);
    else if (!KNOWN.includes(key)) errors.push(`${key}: is not a parameter of the agent tool (known: ${KNOWN.join(', ')})`);
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
  const name = text('name', false);
  const background = raw.run_in_background;
  if (background !== undefined && typeof background !== 'boolean') errors.push('run_in_background: must be true or false');

  const isFork = type === FORK_SUBAGENT_TYPE;
  if (subagentType !== undefined && !isFork && type !== GENERAL_PURPOSE_SUBAGENT_TYPE) {
    errors.push(`subagent_type: must be "fork" or "general-purpose" (or omitted), not ${JSON.stringify(subagentType)}`);
  }

  let forkTurns: ForkTurns = 'all';
  if (raw.fork_turns !== undefined) {
    if (!isFork) errors.push('fork_turns: can only be used with subagent_type "fork"');
    const turns = parseForkTurns(raw.fork_turns);
    if (turns === undefined) errors.push(`fork_turns: ${FORK_TURNS_RULE}, not ${JSON.stringify(raw.fork_turns)}`);
    else forkTurns = turns;
  }

  if (raw.fork_tools !== undefined && !isFork) errors.push('fork_tools: can only be used with subagent_type "fork"');
  const allowedTools = raw.fork_tools === undefined ? undefined : checkToolNames(raw.fork_tools, errors);

  if (model !== undefined) {
    errors.push(
      isFork
        ? 'model: cannot be combined with subagent_type "fork": a fork always uses this conversation\'s model, because another model cannot read its prompt cache'
        : "model: is not supported: every sub-agent runs on this conversation's model",
    );
  }
  if (ctx.insideSubagent === true && background === true) {
    errors.push('run_in_background: background runs cannot be started from inside a sub-agent');
  }

  if (errors.length > 0 || description === undefined || prompt === undefined) {
    return { ok: false, error: failure('invalid_params', errors.join('\n')) };
  }
  const params: AgentParams = { description, prompt };
  if (subagentType !== undefined) params.subagent_type = type;
  if (typeof background === 'boolean') params.run_in_background = background;
  if (raw.fork_turns !== undefined) params.fork_turns = raw.fork_turns as string | number;
  if (allowedTools !== undefined) params.fork_tools = allowedTools;
  if (name !== undefined) params.name = name;

  // The reference's rule (Qwen Code agent.ts): a headless fork always goes to the background (forks
  // are detached, and a short-lived process must hold their work; an interactive one is never
  // awaited either); for any other sub-agent run_in_background wins, and left out it runs in the
  // background unless it was given a name (the reference keeps a named call without a team in the foreground).
  const runInBackground = isFork || (ctx.insideSubagent !== true && (params.run_in_background ?? name === undefined));
  const fork: ForkRequest | undefined = isFork ? { forkTurns, ...(allowedTools !== undefined ? { allowedTools } : {}) } : undefined;
  return { ok: true, params, subagentType: isFork ? FORK_SUBAGENT_TYPE : GENERAL_PURPOSE_SUBAGENT_TYPE, fork, runInBackground };
}

/** The sub-agent an agent call asks for: "fork" in any case, else the (normalized) name; omitted is general-purpose. */
export function requestedSubagentType(args: Readonly<Record<string, unknown>> | undefined): string {
  const type = args?.subagent_type;
  return typeof type === 'string' ? type.trim().toLowerCase() : GENERAL_PURPOSE_SUBAGENT_TYPE;
}

/** fork_turns as models send it: "all", or a positive integer as a JSON number or a numeric string. */
function parseForkTurns(value: unknown): ForkTurns | undefined {
  if (value === 'all') return 'all';
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value === 'string' && POSITIVE_INTEGER.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return undefined;
}

/** fork_tools: exact names and the reference's MCP forms (src/session/tool-allowlist.ts), each bad entry named. */
function checkToolNames(value: unknown, errors: string[]): string[] | undefined {
  if (!Array.isArray(value)) {
    errors.push('fork_tools: must be an array of tool names or MCP patterns');
    return undefined;
  }
  const before = errors.length;
  value.forEach((name: unknown, i) => {
    const rule = toolEntryRule(name, 'fork_tools');
    if (rule !== undefined) errors.push(`fork_tools[${i}]: ${rule}`);
  });
  return errors.length === before ? (value as string[]).slice() : undefined;
}
