// The fork protocol's wording, shared on purpose: the scripted model finds its directive, a tool
// restriction and the reminders to skip exactly as the fork rules write them (src/fork).
import { DIRECTIVE_PREFIX, TOOL_RESTRICTION_OPEN } from '../../wording/constants.js';
import { isReminder } from '../../wording/constants.js';
import { isObject } from './json.js';
import type { JsonObject, WireContent, WireFunctionResponse } from './types.js';

/**
 * The scripted model's instructions: where the directive is in a conversation, which model turn
 * of the fork this request is, and the commands the directive holds (one per line).
 */

export type Command =
  | { kind: 'call'; turn: number; name: string; args: JsonObject }
  | { kind: 'recall'; pattern: string }
  | { kind: 'reply'; text: string }
  | { kind: 'json'; text: string }
  | { kind: 'fork'; directive: string }
  | { kind: 'sleep'; ms: number }
  | { kind: 'fail'; status: number; times: number }
  | { kind: 'tokens'; count: number };

export interface Script {
  commands: Command[];
  /** Lines that are not commands. */
  text: string[];
}

export interface Situation {
  directive: string;
  /** Index in contents of the message holding the directive (-1: none). */
  anchor: number;
  /** 1 + the model messages with function calls after the anchor. */
  turn: number;
}

const DIRECTIVE = DIRECTIVE_PREFIX.trimEnd();
const NOTIFICATION = '<task-notification>';

const isUser = (content: WireContent): boolean => content.role === undefined || content.role === '' || content.role === 'user';

function isRealUserText(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== '' && !trimmed.includes(NOTIFICATION) && !isReminder(trimmed);
}

function findAnchor(contents: readonly WireContent[]): { directive: string; anchor: number } {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i] as WireContent;
    if (!isUser(content)) continue;
    for (let p = content.parts.length - 1; p >= 0; p--) {
      const text = content.parts[p]?.text;
      if (text === undefined) continue;
      const at = text.lastIndexOf(DIRECTIVE);
      if (at >= 0) {
        // The directive runs to the fork's tool-restriction block, when it has one.
        const end = text.indexOf(TOOL_RESTRICTION_OPEN, at);
        return { directive: text.slice(at + DIRECTIVE.length, end < 0 ? undefined : end).trim(), anchor: i };
      }
    }
  }
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i] as WireContent;
    if (!isUser(content)) continue;
    const texts = content.parts.map((part) => part.text).filter((t): t is string => t !== undefined && isRealUserText(t));
    if (texts.length > 0) return { directive: texts.join('\n').trim(), anchor: i };
  }
  return { directive: '', anchor: -1 };
}

export function situate(contents: readonly WireContent[]): Situation {
  const { directive, anchor } = findAnchor(contents);
  let calls = 0;
  for (let i = anchor + 1; i < contents.length; i++) {
    const content = contents[i] as WireContent;
    if (content.role === 'model' && content.parts.some((part) => part.functionCall !== undefined)) calls++;
  }
  return { directive, anchor, turn: 1 + calls };
}

const COMMAND = /^(CALL(?:@(\d+))?|RECALL|REPLY|JSON|FORK|SLEEP|FAIL|TOKENS)(?:\s+([\s\S]*))?$/;

function parseCall(rest: string, turn: number): Command | undefined {
  const match = /^(\S+)(?:\s+([\s\S]+))?$/.exec(rest);
  if (!match || match[1] === undefined) return undefined;
  if (match[2] === undefined) return { kind: 'call', turn, name: match[1], args: {} };
  try {
    const args: unknown = JSON.parse(match[2]);
    return isObject(args) ? { kind: 'call', turn, name: match[1], args } : undefined;
  } catch {
    return undefined;
  }
}

function parseLine(line: string): Command | undefined {
  const match = COMMAND.exec(line);
  if (!match || match[1] === undefined) return undefined;
  const rest = (match[3] ?? '').trim();
  const word = match[1];
  if (word.startsWith('CALL')) return parseCall(rest, match[2] === undefined ? 1 : Number(match[2]));
  switch (word) {
    case 'RECALL':
      return rest === '' ? undefined : { kind: 'recall', pattern: rest };
    case 'REPLY':
      return { kind: 'reply', text: rest };
    case 'JSON':
      return rest === '' ? undefined : { kind: 'json', text: rest };
    case 'FORK':
      return rest === '' ? undefined : { kind: 'fork', directive: rest.replace(/\\n/g, '\n') };
    case 'SLEEP':
      return /^\d+$/.test(rest) ? { kind: 'sleep', ms: Number(rest) } : undefined;
    case 'TOKENS':
      return /^\d+$/.test(rest) ? { kind: 'tokens', count: Number(rest) } : undefined;
    case 'FAIL': {
      const fail = /^(\d{3})(?:\s+x(\d+))?$/.exec(rest);
      // Only error statuses: anything else cannot be an HTTP failure (FAIL 999, FAIL 200 are plain text).
      if (!fail || Number(fail[1]) < 400 || Number(fail[1]) > 599) return undefined;
      return { kind: 'fail', status: Number(fail[1]), times: fail[2] === undefined ? 1 : Number(fail[2]) };
    }
    default:
      return undefined;
  }
}

export function parseScript(directive: string): Script {
  const script: Script = { commands: [], text: [] };
  for (const raw of directive.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const command = parseLine(line);
    if (command) script.commands.push(command);
    else script.text.push(line);
  }
  return script;
}

/** functionResponses in contents after the anchor (the fork's own tool results). */
export function responsesAfter(contents: readonly WireContent[], anchor: number): WireFunctionResponse[] {
  const out: WireFunctionResponse[] = [];
  for (let i = anchor + 1; i < contents.length; i++) {
    for (const part of (contents[i] as WireContent).parts) if (part.functionResponse) out.push(part.functionResponse);
  }
  return out;
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : name === 'apos' ? "'" : '&',
  );
}

/** The `<result>` text of every `<task-notification>` in user text after the anchor. */
export function notificationResults(contents: readonly WireContent[], anchor: number): string[] {
  const out: string[] = [];
  for (let i = anchor + 1; i < contents.length; i++) {
    const content = contents[i] as WireContent;
    if (!isUser(content)) continue;
    for (const part of content.parts) {
      if (part.text === undefined || !part.text.includes(NOTIFICATION)) continue;
      for (const block of part.text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)) {
        const result = /<result>([\s\S]*?)<\/result>/.exec(block[1] ?? '');
        if (result && result[1] !== undefined) out.push(unescapeXml(result[1]).trim());
      }
    }
  }
  return out;
}
