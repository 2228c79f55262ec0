import type { HubMessage, HubSession, HubSettings, HubTool, HubToolChoice, Opaque } from '../hub.js';
import { extraFields, hubPart } from './read-block.js';
import type { AnthropicMessage, AnthropicMessagesSession, AnthropicTool } from './schema.js';

/*
 * Anthropic Messages' shape → the hub (docs/converting.md states the rules for users).
 *
 * To the hub: `system` is a leading system message; text, thinking (with its signature), tool_use,
 * tool_result (its text; is_error an error output) and base64 image and document blocks become
 * hub parts; cache_control markers, citations, redacted thinking and other blocks travel as
 * opaque items. max_tokens, stop_sequences, a thinking budget and tool choice become settings.
 */

type Json = Record<string, unknown>;
type Block = Json & { type: string };

export function toHub(session: Readonly<AnthropicMessagesSession>): HubSession {
  const messages: HubMessage[] = [];
  const system = session.system;
  if (system !== undefined) {
    const blocks: Block[] = typeof system === 'string' ? [{ type: 'text', text: system }] : (system as Block[]);
    messages.push({
      role: 'system',
      parts: blocks.map((block, b) => hubPart(block, typeof system === 'string' ? 'system' : `system[${b}]`, new Map())),
      path: 'system',
      extras: [],
      textForm: 'string',
    });
  }
  const names = new Map<string, string>();
  (session.messages as AnthropicMessage[]).forEach((message, m) => {
    const path = `messages[${m}]`;
    const content = message.content as string | Block[];
    const parts =
      typeof content === 'string'
        ? [hubPart({ type: 'text', text: content }, path, names)]
        : content.map((block, b) => hubPart(block, `${path}.content[${b}]`, names));
    messages.push({
      role: message.role === 'assistant' ? 'model' : 'user',
      parts,
      path,
      extras: [],
      textForm: typeof content === 'string' ? 'string' : 'parts',
    });
  });
  const settings: HubSettings = { maxOutputTokens: { value: session.max_tokens, path: '', what: 'max_tokens', countsReasoning: false } };
  if (session.stop_sequences !== undefined) settings.stop = { value: session.stop_sequences, path: '', what: 'stop_sequences' };
  const settingExtras: Opaque[] = [];
  const thinking = session.thinking as Json | undefined;
  if (thinking?.type === 'disabled') settings.thinkingBudget = { value: 0, path: '', what: 'thinking' };
  else if (thinking?.type === 'enabled') settings.thinkingBudget = { value: thinking.budget_tokens, path: '', what: 'thinking' };
  else if (thinking !== undefined)
    settingExtras.push({
      path: 'thinking',
      what: `thinking ${JSON.stringify(thinking.type)}`,
      why: 'the thinking that converts is a budget (enabled) or none (disabled)',
    });
  const toolChoiceExtras: Opaque[] = [];
  const toolChoice = session.tool_choice === undefined ? undefined : hubToolChoice(session.tool_choice as Json, toolChoiceExtras);
  return {
    model: session.model,
    messages,
    tools: ((session.tools ?? []) as AnthropicTool[]).map((tool, t) => hubTool(tool as Json & AnthropicTool, `tools[${t}]`)),
    toolExtras: [],
    ...(toolChoice ? { toolChoice: { value: toolChoice, path: 'tool_choice', what: 'tool_choice' } } : {}),
    toolChoiceExtras,
    settings,
    settingExtras,
    extras: [],
    conversation: 'messages',
  };
}

function hubTool(tool: Json & AnthropicTool, path: string): HubTool {
  return {
    name: tool.name,
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    parameters: tool.input_schema as Json,
    path,
    fieldsPath: path,
    extras: extraFields(tool as Block, ['name', 'description', 'input_schema', 'type'], path),
  };
}

function hubToolChoice(choice: Json, extras: Opaque[]): HubToolChoice {
  if (choice.disable_parallel_tool_use !== undefined) extras.push({ path: 'tool_choice', what: 'disable_parallel_tool_use' });
  switch (choice.type) {
    case 'any':
      return { kind: 'required' };
    case 'tool':
      return { kind: 'function', name: choice.name as string };
    case 'none':
      return { kind: 'none' };
    default:
      return { kind: 'auto' };
  }
}
