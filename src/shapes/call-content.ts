import { shapeNamed, type ModelMessage, type ModelRequest } from './registry.js';

/*
 * Prompts and completions as the GenAI conventions' opt-in content attributes carry them
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`: JSON strings of
 * `{ role, parts: [{ type, … }] }`). Each shape maps its own messages (its folder's telemetry.ts,
 * the Shape's `telemetry` facet); this only asks the registry for the request's shape.
 */

/** What a call sent, as the content attributes carry it (strings of JSON). */
export interface CallContent {
  input: string;
  system?: string;
}

export function requestContent(request: ModelRequest): CallContent {
  const { messages, system } = shapeNamed(request.format).telemetry.request(request);
  return { input: JSON.stringify(messages), ...(system !== undefined ? { system: JSON.stringify(system) } : {}) };
}

/** The model's reply to a request in this shape (`format`), as `gen_ai.output.messages`. */
export function replyContent(format: string, message: ModelMessage, finishReason: string | undefined): string {
  const m = shapeNamed(format).telemetry.reply(message);
  return JSON.stringify([{ ...m, role: 'assistant', ...(finishReason !== undefined ? { finish_reason: finishReason } : {}) }]);
}
