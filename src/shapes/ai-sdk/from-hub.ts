import { given, type Issues } from '../convert-issues.js';
import type { HubSession } from '../hub.js';
import { MessageWriter } from './message-writer.js';
import type { AiSdkSession } from './schema.js';

/*
 * The hub → the AI SDK's ModelMessage shape (docs/converting.md states the rules for users).
 *
 * From the hub: leading system text → `system` (texts joined with "\n"), later system messages stay
 * `{ "role": "system" }` messages; a user message → its results as one "tool" message (tool-result
 * parts, each with its call's toolName: a JSON object response as a json output, text as a text
 * output, an error as error-text), then its text and media as a "user" message (one text a string);
 * a model message → an "assistant" message of text, reasoning and tool-call parts (one text a
 * string; a call's `arguments` text parsed as JSON). Ids as the source has them, `call_<n>` for a
 * call without one. Tools → `tools` keyed by name ({ description, inputSchema, strict }), tool
 * choice → toolChoice (a named function → { type: "tool", toolName }), and maxOutputTokens,
 * temperature, topP, topK, stopSequences and seed as they are. A response format, a thinking
 * budget, a reasoning effort, parallel_tool_calls, cache options and files by id are unsupported.
 * Output keys, in this order: format, model, system, messages, tools, toolChoice,
 * maxOutputTokens, temperature, topP, topK, stopSequences, seed.
 */

type Json = Record<string, unknown>;

export function fromHub(hub: HubSession, issues: Issues): AiSdkSession {
  issues.opaque(hub.extras);
  const leading = hub.messages.findIndex((message) => message.role !== 'system' && message.role !== 'developer');
  const head = leading < 0 ? hub.messages : hub.messages.slice(0, leading);
  const writer = new MessageWriter(hub, issues);
  const systemTexts = head.flatMap((message) => writer.texts(message));
  const messages = writer.messages(hub.messages.slice(head.length));
  if (messages.length === 0) issues.fail(hub.conversation, 'an ai-sdk session needs at least one message, and nothing is left to convert');
  issues.opaque(hub.toolExtras);
  const tools: Record<string, Json> = {};
  for (const tool of hub.tools) {
    issues.opaque(tool.extras);
    tools[tool.name] = {
      ...given('description', tool.description ?? undefined),
      inputSchema: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict === true || tool.strict === null ? { strict: true } : {}),
    };
  }
  issues.opaque(hub.toolChoiceExtras);
  const toolChoice = hub.toolChoice ? toolChoiceOf(hub.toolChoice, issues) : undefined;
  issues.opaque(hub.settingExtras);
  const s = hub.settings;
  for (const setting of [
    s.responseFormat,
    s.thinkingBudget,
    s.reasoningEffort,
    s.parallelToolCalls,
    s.promptCacheOptions,
    s.promptCacheRetention,
  ]) {
    if (setting === undefined) continue;
    issues.opaque(setting.extras);
    if (setting.value !== undefined && setting.value !== null) issues.unsupported(setting.path, setting.what);
  }
  const value = (setting: { value: unknown } | undefined) => (setting?.value === null ? undefined : setting?.value);
  const stop = value(s.stop);
  return {
    format: 'ai-sdk',
    model: hub.model,
    ...(systemTexts.length > 0 ? { system: systemTexts.join('\n') } : {}),
    messages,
    ...(hub.tools.length > 0 ? { tools } : {}),
    ...given('toolChoice', toolChoice),
    ...given('maxOutputTokens', value(s.maxOutputTokens)),
    ...given('temperature', value(s.temperature)),
    ...given('topP', value(s.topP)),
    ...given('topK', value(s.topK)),
    ...given('stopSequences', typeof stop === 'string' ? [stop] : stop),
    ...given('seed', value(s.seed)),
  } as AiSdkSession;
}

function toolChoiceOf(choice: NonNullable<HubSession['toolChoice']>, issues: Issues): unknown {
  const value = choice.value;
  switch (value.kind) {
    case 'function':
      return { type: 'tool', toolName: value.name };
    case 'allowed':
      issues.unsupported(choice.path, value.what, 'the AI SDK names one tool ({ "type": "tool" }) or lets the model choose among all');
      return value.mode;
    default:
      return value.kind;
  }
}
