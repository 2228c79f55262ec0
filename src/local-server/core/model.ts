import vm from 'node:vm';
// The fork protocol's wording, shared on purpose: a FORK command is a call of the fork tool by its
// public name and subagent type, which the client under test defines (src/fork). No cache rule comes
// from outside src/local-server (each dialect keeps its own copy, with its sources).
import { AGENT_TOOL_NAME, FORK_SUBAGENT_TYPE } from '../../wording/constants.js';
import { CHARS_PER_TOKEN } from './chain.js';
import { outputTokens } from './exchange.js';
import { shortHash } from './render.js';
import { notificationResults, parseScript, responsesAfter, situate, type Command } from './script.js';
import type { JsonObject, PromptFields, WireContent, WireFunctionCall, WirePart } from './types.js';

/**
 * The scripted, deterministic model. It reads the whole request: the directive decides what it
 * does, the context decides what it can answer (RECALL searches everything it was sent).
 */

export interface ModelPlan {
  sleepMs: number;
  fail: { status: number; times: number } | undefined;
  parts: WirePart[];
  /** The request's output limit cut the reply: each dialect says so with its API's word (length, MAX_TOKENS, max_tokens, incomplete). */
  cut: boolean;
}

export interface ModelInput {
  /** The explicit cache's fields (if any) followed by the request's own, in request order. */
  fields: readonly PromptFields[];
  /** Context hash of the rendered prompt. */
  digest: string;
  /** The request's output limit (max_tokens, maxOutputTokens, max_output_tokens), when it set one. */
  maxOutputTokens?: number | undefined;
}

/**
 * A text reply longer than the request's output limit ends at the limit, as the APIs end theirs.
 * A reply of calls is not cut: a call cut short is arguments no client can read, which a script
 * does not need to make.
 */
function withinLimit(parts: WirePart[], limit: number | undefined): { parts: WirePart[]; cut: boolean } {
  if (limit === undefined || limit < 1 || parts.some((part) => part.text === undefined) || outputTokens(parts) <= limit)
    return { parts, cut: false };
  let room = limit * CHARS_PER_TOKEN;
  const kept: WirePart[] = [];
  for (const part of parts) {
    const text = part.text ?? '';
    if (room <= 0) break;
    kept.push({ ...part, text: text.slice(0, room) });
    room -= text.length;
  }
  return { parts: kept, cut: true };
}

/** The whole request as plain text: texts verbatim, everything else as JSON. */
function requestText(fields: readonly PromptFields[]): string {
  const chunks: string[] = [];
  const addContent = (content: WireContent): void => {
    for (const part of content.parts) chunks.push(part.text !== undefined ? part.text : JSON.stringify(part));
  };
  for (const f of fields) {
    if (f.systemInstruction) addContent(f.systemInstruction);
    if (f.tools) chunks.push(JSON.stringify(f.tools));
    if (f.toolConfig) chunks.push(JSON.stringify(f.toolConfig));
    for (const content of f.contents) addContent(content);
  }
  return chunks.join('\n');
}

/** A RECALL pattern runs under this bound: a catastrophic regex in a request must not stall every other request. */
const RECALL_TIMEOUT_MS = 1_000;

let recallContext: vm.Context | undefined;
const RECALL_SCRIPT = new vm.Script('Array.from(text.matchAll(new RegExp(pattern, "g")), (m) => m[0]).filter((m) => m !== "")');

function recall(pattern: string, text: () => string): string {
  try {
    new RegExp(pattern, 'g');
  } catch {
    return `RECALL ${pattern}: invalid regular expression`;
  }
  recallContext ??= vm.createContext(Object.create(null) as object);
  const context = recallContext as { text?: string; pattern?: string };
  context.text = text();
  context.pattern = pattern;
  let matches: string[];
  try {
    matches = RECALL_SCRIPT.runInContext(recallContext, { timeout: RECALL_TIMEOUT_MS }) as string[];
  } catch {
    return `RECALL ${pattern}: the regular expression took longer than ${RECALL_TIMEOUT_MS} ms and was stopped`;
  } finally {
    context.text = '';
    context.pattern = '';
  }
  const found = new Set<string>(matches);
  return found.size === 0 ? `RECALL ${pattern}: no match` : `RECALL ${pattern}: ${[...found].join(', ')}`;
}

/** TOKENS builds its answer in memory: 16M tokens (64 MiB of text) is far past any real model's output. */
const MAX_TOKENS_COMMAND = 16 * 1024 * 1024;

const FILLER = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

function fillerText(tokens: number): string {
  const chars = tokens * 4;
  let text = '';
  for (let i = 0; text.length < chars; i++) text += (text === '' ? '' : ' ') + FILLER[i % FILLER.length];
  return text.slice(0, chars);
}

function defaultReport(scopeLines: readonly string[], contents: readonly WireContent[], anchor: number, digest: string): string {
  const responses = responsesAfter(contents, anchor);
  const names = [...new Set(responses.map((r) => r.name))];
  const scope = (scopeLines[0] ?? '(no directive)').slice(0, 120);
  const results =
    responses.length === 0
      ? 'no tool results'
      : `${responses.length} tool result(s) from ${names.join(', ')}, digest ${shortHash(JSON.stringify(responses))}`;
  return `Scope: ${scope}\nResult: ${results}; context ${digest}`;
}

function finalAnswer(
  commands: readonly Command[],
  scopeLines: readonly string[],
  contents: readonly WireContent[],
  anchor: number,
  input: ModelInput,
): string {
  const json = commands.filter((c) => c.kind === 'json');
  const last = json[json.length - 1];
  if (last) return last.text;
  let text: string | undefined;
  const requestTextOnce = (): string => (text ??= requestText(input.fields));
  const lines: string[] = [];
  for (const command of commands) {
    if (command.kind === 'reply') lines.push(command.text);
    else if (command.kind === 'recall') lines.push(recall(command.pattern, requestTextOnce));
    else if (command.kind === 'tokens') {
      lines.push(
        command.count > MAX_TOKENS_COMMAND ? `TOKENS ${command.count}: at most ${MAX_TOKENS_COMMAND} tokens` : fillerText(command.count),
      );
    }
  }
  const notes = notificationResults(contents, anchor);
  if (notes.length > 0) lines.push(`Fork results:\n${notes.join('\n')}`);
  return lines.length > 0 ? lines.join('\n') : defaultReport(scopeLines, contents, anchor, input.digest);
}

/**
 * A script cannot know the task ids a run makes up: an argument written "$TASK_ID" is the last
 * `task_id: …` the conversation holds (a background launch's response says it so).
 */
function withTaskId(args: JsonObject, requestText: () => string): JsonObject {
  if (!Object.values(args).includes(TASK_ID)) return args;
  const ids = [...requestText().matchAll(/task_id: ([\w.:-]+)/g)];
  const id = ids.at(-1)?.[1] ?? TASK_ID;
  return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, value === TASK_ID ? id : value]));
}

const TASK_ID = '$TASK_ID';

export function planResponse(input: ModelInput): ModelPlan {
  const contents = input.fields.flatMap((f) => f.contents);
  const { directive, anchor, turn } = situate(contents);
  const { commands, text } = parseScript(directive);
  let sleepMs = 0;
  let fail: ModelPlan['fail'];
  for (const command of commands) {
    if (command.kind === 'sleep') sleepMs += command.ms;
    if (command.kind === 'fail') fail = { status: command.status, times: command.times };
  }
  const calls: WireFunctionCall[] = [];
  let asked: string | undefined;
  const askedOnce = (): string => (asked ??= requestText(input.fields));
  for (const command of commands) {
    if (command.kind === 'call' && command.turn === turn) calls.push({ name: command.name, args: withTaskId(command.args, askedOnce) });
    if (command.kind === 'fork' && turn === 1) {
      const description = command.directive.split('\n')[0]?.slice(0, 40) ?? '';
      calls.push({ name: AGENT_TOOL_NAME, args: { description, prompt: command.directive, subagent_type: FORK_SUBAGENT_TYPE } });
    }
  }
  const planned: WirePart[] =
    calls.length > 0
      ? calls.map((call, i) => ({ functionCall: { id: `call_${input.digest}_${i}`, ...call } }))
      : [{ text: finalAnswer(commands, text, contents, anchor, input) }];
  const { parts, cut } = withinLimit(planned, input.maxOutputTokens);
  return { sleepMs, fail, parts, cut };
}
