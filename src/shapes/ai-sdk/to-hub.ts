import { given } from '../convert-issues.js';
import type { HubMessage, HubSession, HubSettings, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { MessageReader, optionsOf } from './message-reader.js';
import type { AiSdkMessage, AiSdkSession } from './schema.js';

/*
 * The AI SDK's ModelMessage shape → the hub (docs/converting.md states the rules for users).
 *
 * To the hub: `system` (a string, or system messages) and system messages in `messages` are system
 * messages where they stand; text parts text, image and file parts media (a URL, or base64 data
 * with its mediaType), reasoning parts thoughts, tool-call parts calls (`input` as it is), and a
 * tool message's tool-result parts results (text and json outputs as they are, error-text and
 * error-json as errors, a content output's text); the user's next words join the results, as
 * Gemini's shape has them. providerOptions, provider-executed calls and their results, approval
 * requests and responses, denied executions, presencePenalty and frequencyPenalty travel as opaque
 * items. Tools (keyed by name) are function tools with their inputSchema.
 */

type Json = Record<string, unknown>;

export function toHub(session: Readonly<AiSdkSession>): HubSession {
  const messages: HubMessage[] = [];
  const system = session.system as string | Json | Json[] | undefined;
  if (typeof system === 'string') messages.push(systemMessage(system, 'system', []));
  else if (Array.isArray(system))
    messages.push(
      ...system.map((message, s) => systemMessage(message.content as string, `system[${s}]`, optionsOf(message, `system[${s}]`))),
    );
  else if (system !== undefined) messages.push(systemMessage(system.content as string, 'system', optionsOf(system, 'system')));
  new MessageReader(messages).read(session.messages as AiSdkMessage[]);
  const tools = Object.entries((session.tools ?? {}) as Record<string, Json>).map(([name, tool]) => hubTool(name, tool));
  const choice = session.toolChoice as string | Json | undefined;
  const toolChoice: HubToolChoice | undefined =
    choice === undefined
      ? undefined
      : typeof choice === 'string'
        ? { kind: choice as 'auto' | 'none' | 'required' }
        : { kind: 'function', name: choice.toolName as string };
  const settingExtras: Opaque[] = (['providerOptions', 'presencePenalty', 'frequencyPenalty'] as const)
    .filter((key) => session[key] !== undefined)
    .map((key) => ({ path: '', what: key }));
  const at = (what: keyof AiSdkSession) => (session[what] === undefined ? undefined : { value: session[what] as unknown, path: '', what });
  const settings: HubSettings = {};
  const put = <K extends keyof HubSettings>(key: K, value: HubSettings[K] | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  const limit = at('maxOutputTokens');
  if (limit) settings.maxOutputTokens = { ...limit, countsReasoning: false };
  put('temperature', at('temperature'));
  put('topP', at('topP'));
  put('topK', at('topK'));
  put('stop', at('stopSequences'));
  put('seed', at('seed'));
  return {
    model: session.model,
    messages,
    tools,
    toolExtras: [],
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: 'toolChoice', what: 'toolChoice' } } : {}),
    toolChoiceExtras: [],
    settings,
    settingExtras,
    extras: [],
    conversation: 'messages',
  };
}

function systemMessage(text: string, path: string, extras: Opaque[]): HubMessage {
  return { role: 'system', parts: [{ kind: 'text', text, path, extras: [] }], path, extras, textForm: 'string' };
}

function hubTool(name: string, tool: Json): HubTool {
  const path = `tools.${name}`;
  return {
    name,
    ...given('description', tool.description),
    parameters: tool.inputSchema as Json,
    strict: tool.strict === true,
    path,
    fieldsPath: path,
    extras: optionsOf(tool, path),
  };
}
