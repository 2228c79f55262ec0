import type { FunctionDeclaration } from '../shapes/dialect.js';
import { parametersJsonSchemaOf } from '../input/json-schema.js';
import type { z } from 'zod';

/** What a tool's execute() gets besides its arguments. */
export interface ToolContext {
  /** The id of the fork that called the tool. */
  forkId: string;
  /** Aborted when the fork is cancelled, times out, or the tool exceeds its own timeout. */
  signal: AbortSignal;
  /** The model's id for this call, when its API gives one. */
  callId?: string;
}

export type { FunctionDeclaration };

export type ApprovalPolicy = 'never' | 'required';

export interface Tool<Args = unknown> {
  readonly name: string;
  readonly description: string;
  /** zod schema: the single source of truth for validation, the args type and the JSON Schema. */
  readonly parameters: z.ZodType<Args>;
  /** 'required': needs a person's approval, so a background fork is always denied it. */
  readonly approval: ApprovalPolicy;
  /** Asks the user something; never executable in a fork. */
  readonly interactive: boolean;
  /** Per-call bound in ms; the call fails with a timeout error past it. */
  readonly timeoutMs: number | undefined;
  /**
   * false: only the main session may execute it (like the reference's image renderer). It stays
   * declared to forks, so their requests keep the parent's bytes, and is refused when they call it.
   */
  readonly forks: boolean;
  /**
   * true: `execute` runs in a thread of its own, and its timeout ends that thread — for CPU-bound
   * work that a timer on the main thread could never interrupt. Such a tool is loaded by the
   * thread from `module`, since a closure cannot move between threads.
   */
  readonly cpu: boolean;
  /** The module (file URL or path) that exports this tool: `import.meta.url`; loadToolsModule fills it in. */
  readonly module: string | undefined;
  readonly declaration: FunctionDeclaration;
  execute(args: Args, ctx: ToolContext): unknown;
}

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  execute(args: z.output<S>, ctx: ToolContext): unknown;
  approval?: ApprovalPolicy;
  interactive?: boolean;
  timeoutMs?: number;
  /** false: main session only (declared to forks, never executed by them). Default true. */
  forks?: boolean;
  /** true: run `execute` in a thread of its own, ended at the timeout (needs `module`, or loadToolsModule). */
  cpu?: boolean;
  /** The module that exports this tool, for `cpu: true`: pass `import.meta.url`. */
  module?: string | URL;
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Defines a tool; its Gemini declaration is generated from the zod schema. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<z.output<S>> {
  if (!TOOL_NAME.test(def.name)) {
    throw new TypeError(
      `defineTool: name ${JSON.stringify(def.name)} must start with a letter or underscore and hold at most 64 letters, digits, _ . -`,
    );
  }
  let parametersJsonSchema: Record<string, unknown>;
  try {
    parametersJsonSchema = parametersJsonSchemaOf(def.parameters);
  } catch (err) {
    throw new TypeError(
      `defineTool ${JSON.stringify(def.name)}: parameters cannot be declared as JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return Object.freeze({
    name: def.name,
    description: def.description,
    parameters: def.parameters as z.ZodType<z.output<S>>,
    approval: def.approval ?? 'never',
    interactive: def.interactive ?? false,
    timeoutMs: def.timeoutMs,
    forks: def.forks ?? true,
    cpu: def.cpu ?? false,
    module: def.module === undefined ? undefined : String(def.module),
    declaration: { name: def.name, description: def.description, parametersJsonSchema },
    execute: def.execute,
  });
}
