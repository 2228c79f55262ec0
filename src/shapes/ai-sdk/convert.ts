import { isRecord } from '../../input/json.js';
import { CallLedger, type CallRules, given, type Issues } from '../convert-issues.js';
import {
  type HubMedia,
  type HubMessage,
  type HubOutput,
  type HubPart,
  type HubResult,
  type HubSession,
  type HubSettings,
  type HubText,
  type HubTool,
  type HubToolChoice,
  hubCallIds,
  type Opaque,
  partWhat,
} from '../hub.js';
import type { ConvertFacet } from '../shape.js';
import type { AiSdkSessionLike } from './dialect.js';
import type { AiSdkMessage, AiSdkSession } from './schema.js';

/*
 * The AI SDK's ModelMessage shape (`"format": "ai-sdk"`) ⇄ the hub. docs/converting.md states the
 * rules for users.
 *
 * To the hub: `system` (a string, or system messages) and system messages in `messages` are system
 * messages where they stand; text parts text, image and file parts media (a URL, or base64 data
 * with its mediaType), reasoning parts thoughts, tool-call parts calls (`input` as it is), and a
 * tool message's tool-result parts results (text and json outputs as they are, error-text and
 * error-json as errors, a content output's text); the user's next words join the results, as
 * Gemini's shape has them. providerOptions, provider-executed calls and their results, approval
 * requests and responses, denied executions, presencePenalty and frequencyPenalty travel as opaque
 * items. Tools (keyed by name) are function tools with their inputSchema.
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
type Part = Json & { type: string };

// ── To the hub ──────────────────────────────────────────────────────────────────────────────────

function toHub(session: Readonly<AiSdkSession>): HubSession {
  const messages: HubMessage[] = [];
  const system = session.system as string | Json | Json[] | undefined;
  if (typeof system === 'string') messages.push(systemMessage(system, 'system', []));
  else if (Array.isArray(system)) messages.push(...system.map((message, s) => systemMessage(message.content as string, `system[${s}]`, optionsOf(message, `system[${s}]`))));
  else if (system !== undefined) messages.push(systemMessage(system.content as string, 'system', optionsOf(system, 'system')));
  new MessageReader(messages).read(session.messages as AiSdkMessage[]);
  const tools = Object.entries((session.tools ?? {}) as Record<string, Json>).map(([name, tool]) => hubTool(name, tool));
  const choice = session.toolChoice as string | Json | undefined;
  const toolChoice: HubToolChoice | undefined =
    choice === undefined ? undefined : typeof choice === 'string' ? { kind: choice as 'auto' | 'none' | 'required' } : { kind: 'function', name: choice.toolName as string };
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

function optionsOf(value: Json, path: string): Opaque[] {
  return value.providerOptions === undefined ? [] : [{ path, what: 'providerOptions' }];
}

function systemMessage(text: string, path: string, extras: Opaque[]): HubMessage {
  return { role: 'system', parts: [{ kind: 'text', text, path, extras: [] }], path, extras, textForm: 'string' };
}

class MessageReader {
  private readonly names = new Map<string, string>();
  private afterTools = false;

  constructor(private readonly out: HubMessage[]) {}

  read(messages: readonly AiSdkMessage[]): void {
    messages.forEach((message, m) => {
      this.message(message as unknown as Json & { role: string; content: string | Part[] }, `messages[${m}]`);
    });
  }

  private message(message: Json & { role: string; content: string | Part[] }, path: string): void {
    const extras = optionsOf(message, path);
    const afterTools = this.afterTools;
    this.afterTools = false;
    const content = message.content;
    const parts: HubPart[] = typeof content === 'string' ? [{ kind: 'text', text: content, path, extras: [] }] : content.map((part, p) => this.part(part, `${path}.content[${p}]`));
    const textForm = typeof content === 'string' ? 'string' : 'parts';
    const last = this.out.at(-1);
    if (message.role === 'tool') {
      if (afterTools && last) last.parts.push(...parts);
      else this.out.push({ role: 'user', parts, path, extras });
      this.afterTools = true;
      return;
    }
    if (message.role === 'user' && afterTools && last) {
      last.parts.push(...parts);
      last.extras.push(...extras);
      last.textForm = textForm;
      return;
    }
    this.out.push({ role: message.role === 'assistant' ? 'model' : (message.role as 'user' | 'system'), parts, path, extras, textForm });
  }

  private part(part: Part, path: string): HubPart {
    const extras = optionsOf(part, path);
    switch (part.type) {
      case 'text':
        return { kind: 'text', text: part.text as string, path, extras };
      case 'reasoning':
        return { kind: 'thought', text: part.text as string, path, extras };
      case 'image':
      case 'file':
        return mediaOf(part, path, extras);
      case 'tool-call': {
        if (part.providerExecuted === true) extras.push({ path, what: 'providerExecuted', why: 'the provider ran the call: only the AI SDK sends it back' });
        this.names.set(part.toolCallId as string, part.toolName as string);
        const input = part.input;
        const args = isRecord(input) ? { json: input } : { text: JSON.stringify(input), path: `${path}.input` };
        return { kind: 'call', id: part.toolCallId as string, name: part.toolName as string, args, idPath: `${path}.toolCallId`, path, extras };
      }
      case 'tool-result':
        return this.result(part, path, extras);
      default:
        return { kind: 'opaque', what: `a ${part.type} part`, path, extras: [] };
    }
  }

  private result(part: Part, path: string, extras: Opaque[]): HubPart {
    const output = part.output as Json & { type: string };
    const outputPath = `${path}.output`;
    let hub: HubOutput;
    switch (output.type) {
      case 'text':
        hub = { text: output.value as string };
        break;
      case 'json':
        hub = isRecord(output.value) ? { json: output.value } : { text: JSON.stringify(output.value) };
        break;
      case 'error-text':
        hub = { error: output.value as string };
        break;
      case 'error-json':
        hub = { error: JSON.stringify(output.value) };
        break;
      case 'content':
        hub = { parts: (output.value as Part[]).map((item, i) => contentItem(item, `${outputPath}.value[${i}]`)) };
        break;
      default:
        return { kind: 'opaque', what: `a ${output.type} output`, path: outputPath, extras: [] };
    }
    if (output.providerOptions !== undefined) extras.push({ path: outputPath, what: 'providerOptions' });
    const id = part.toolCallId as string;
    return { kind: 'result', id, name: (part.toolName as string | undefined) ?? this.names.get(id), output: hub, namePath: `${path}.toolName`, path, extras } as HubResult;
  }
}

function mediaOf(part: Part, path: string, extras: Opaque[]): HubMedia {
  const value = (part.type === 'image' ? part.image : part.data) as string;
  const mimeType = part.mediaType as string | undefined;
  const media = part.type === 'image' || mimeType?.startsWith('image/') ? 'image' : mimeType?.startsWith('audio/') ? 'audio' : 'file';
  const source = URL.canParse(value) && !value.startsWith('data:') ? { url: value } : { data: value.replace(/^data:[^,]*,/, '') };
  return { kind: 'media', media, what: part.type, ...given('mimeType', mimeType), ...source, ...given('filename', part.filename), path, extras };
}

function contentItem(item: Part, path: string): HubText | HubMedia {
  if (item.type === 'text') return { kind: 'text', text: item.text as string, path, extras: optionsOf(item, path) };
  if (item.type === 'image-data' || item.type === 'file-data' || item.type === 'media') {
    const mimeType = item.mediaType as string;
    return { kind: 'media', media: mimeType.startsWith('image/') ? 'image' : 'file', what: item.type, mimeType, data: item.data as string, path, extras: optionsOf(item, path) };
  }
  return { kind: 'media', media: 'file', what: item.type, path, extras: [] };
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

// ── From the hub ────────────────────────────────────────────────────────────────────────────────

const AI_SDK_CALLS: CallRules = {
  idWord: 'toolCallId',
  madeStem: 'call',
  takes: () => true,
  answerRule: 'a tool-result must answer a tool-call of the assistant message before it',
  nameRule: 'a tool-result names the tool of the call it answers',
};

function fromHub(hub: HubSession, issues: Issues): AiSdkSession {
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
  for (const setting of [s.responseFormat, s.thinkingBudget, s.reasoningEffort, s.parallelToolCalls, s.promptCacheOptions, s.promptCacheRetention]) {
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

class MessageWriter {
  private readonly calls: CallLedger;

  constructor(
    hub: HubSession,
    private readonly issues: Issues,
  ) {
    this.calls = new CallLedger(hubCallIds(hub), issues, AI_SDK_CALLS);
  }

  /** A system message's texts (anything else unsupported). */
  texts(message: HubMessage): string[] {
    this.issues.opaque(message.extras);
    const texts: string[] = [];
    for (const part of message.parts) {
      if (part.kind === 'text') {
        this.issues.opaque(part.extras);
        if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
        texts.push(part.text);
      } else if (part.kind === 'thought') this.issues.drop(part.path, 'thought');
      else this.unsupportedPart(part, 'an AI SDK system message holds text only');
    }
    return texts;
  }

  messages(messages: readonly HubMessage[]): Json[] {
    const out: Json[] = [];
    for (const message of messages) {
      if (message.role === 'system' || message.role === 'developer') {
        const texts = this.texts(message);
        if (texts.length > 0) out.push({ role: 'system', content: texts.join('\n') });
        continue;
      }
      this.issues.opaque(message.extras);
      if (message.role === 'model') {
        this.calls.newTurn();
        const parts = message.parts.flatMap((part) => this.modelPart(part) ?? []);
        if (parts.length > 0) out.push({ role: 'assistant', content: compact(parts, message.textForm) });
        continue;
      }
      const results: Part[] = [];
      const parts: Part[] = [];
      for (const part of message.parts) {
        if (part.kind === 'result') {
          const result = this.result(part);
          if (result) results.push(result);
        } else {
          const written = this.userPart(part);
          if (written) parts.push(written);
        }
      }
      if (results.length > 0) out.push({ role: 'tool', content: results });
      if (parts.length > 0) {
        out.push({ role: 'user', content: compact(parts, message.textForm) });
        this.calls.newTurn();
      }
    }
    return out;
  }

  private unsupportedPart(part: HubPart, why?: string): void {
    if (part.kind === 'opaque') this.issues.opaque([part]);
    else this.issues.unsupported(part.path, partWhat(part), why);
  }

  private text(part: HubText): Part {
    this.issues.opaque(part.extras);
    if (part.cacheBreakpoint !== undefined) this.issues.unsupported(part.path, 'prompt_cache_breakpoint');
    return { type: 'text', text: part.text };
  }

  private modelPart(part: HubPart): Part | undefined {
    switch (part.kind) {
      case 'text':
        return this.text(part);
      case 'thought':
        this.issues.opaque(part.extras);
        if (part.signature !== undefined) this.issues.unsupported(part.path, 'a thought signature', "only the provider that made it takes it back, and an AI SDK session's parts carry none");
        return { type: 'reasoning', text: part.text };
      case 'call': {
        this.issues.opaque(part.extras);
        const input = 'json' in part.args ? (part.args.json ?? {}) : inputOf(part.args.text, part.args.path, this.issues);
        const id = this.calls.call(part.id, part.name, part.idPath);
        return { type: 'tool-call', toolCallId: id, toolName: part.name, input };
      }
      case 'media':
        if (part.media === 'file') return this.media(part);
        this.unsupportedPart(part, 'an AI SDK assistant message holds files, not images');
        return undefined;
      default:
        this.unsupportedPart(part, part.kind === 'result' ? "a model message cannot hold a function's result" : undefined);
        return undefined;
    }
  }

  private userPart(part: HubPart): Part | undefined {
    if (part.kind === 'text') return this.text(part);
    if (part.kind === 'media') return this.media(part);
    if (part.kind === 'thought') {
      this.issues.drop(part.path, 'thought');
      return undefined;
    }
    this.unsupportedPart(part, part.kind === 'call' ? 'a user message cannot call a function' : undefined);
    return undefined;
  }

  private media(part: HubMedia): Part | undefined {
    this.issues.opaque(part.extras);
    const value = part.url ?? part.data ?? part.fileData;
    const mediaType = part.mimeType ?? (part.fileData?.match(/^data:([^;,]+)/)?.[1] as string | undefined);
    if (value === undefined || (part.media !== 'image' && mediaType === undefined)) {
      this.issues.unsupported(part.path, part.fileId !== undefined ? `${part.what} by file id` : part.what, 'an AI SDK part holds a URL or base64 data (a file with its media type)');
      return undefined;
    }
    if (part.media === 'image') return { type: 'image', image: value, ...given('mediaType', mediaType) };
    return { type: 'file', data: value, ...given('filename', part.filename), mediaType: mediaType as string };
  }

  private result(part: HubResult): Part | undefined {
    this.issues.opaque(part.extras);
    const answered = this.calls.answer(part, part.path, part.namePath);
    if (answered === undefined) return undefined;
    return { type: 'tool-result', toolCallId: answered.id, toolName: answered.name, output: this.output(part.output) };
  }

  private output(output: HubOutput): Json {
    if ('json' in output) return { type: 'json', value: output.json };
    if ('text' in output) return { type: 'text', value: output.text };
    if ('error' in output) return { type: 'error-text', value: output.error };
    const value: Json[] = [];
    for (const part of output.parts) {
      if (part.kind === 'text') value.push({ type: 'text', text: part.text });
      else this.issues.unsupported(part.path, part.what, 'a converted tool-result holds text only');
    }
    return { type: 'content', value };
  }
}

/** One text as a string (unless the source wrote parts), else the parts. */
function compact(parts: Part[], form: HubMessage['textForm']): string | Part[] {
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.type === 'text' && form !== 'parts' ? (only.text as string) : parts;
}

function inputOf(text: string, path: string, issues: Issues): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    return issues.fail(path, `is not valid JSON (${err instanceof Error ? err.message : String(err)}); an AI SDK tool-call's input is JSON`);
  }
}

export const aiSdkConvert: ConvertFacet<AiSdkSessionLike> = {
  toHub: (session) => toHub(session as unknown as AiSdkSession),
  fromHub: (hub, issues) => fromHub(hub, issues) as unknown as AiSdkSessionLike,
  toolCount: (session) => Object.keys(session.tools ?? {}).length,
};
