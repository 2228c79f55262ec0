/** One tool call, as the model made it and the tool host takes it. */
export interface ToolCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
  /** Why the model's arguments could not be read (Chat Completions sends them as a JSON string). */
  argsError?: string;
}

/** A model's call as the host takes it (a dialect's CallView is one): arguments default to {}, as Gemini omits empty ones. */
export function toolCallOf(call: ToolCall): ToolCall {
  return {
    name: call.name,
    ...(call.id ? { id: call.id } : {}),
    args: call.args ?? {},
    ...(call.argsError !== undefined ? { argsError: call.argsError } : {}),
  };
}
