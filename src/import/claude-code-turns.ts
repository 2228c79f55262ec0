import type { JsonlRecord } from './detect.js';
import type { DroppedRecord, MessageOrigin } from './summary.js';

/*
 * Claude Code's message records → the Messages API's turns. Claude Code writes one record per
 * content block of an assistant message (the records share `message.id`), and with parallel tool
 * calls the records of the later calls, and the results of all of them, hang off one another in
 * whatever order they were written: the parentUuid chain passes through only some of them. So an
 * assistant message is every record of its `message.id`, on the chain or not, in the order they
 * were written; each of its tool_use blocks is answered by the tool_result found for it anywhere
 * in the conversation's records, and those results make the user message right after it, in the
 * order of the calls, as the API requires. Nothing is left out without a DroppedRecord.
 */

type Block = Record<string, unknown>;

/** The fields the Messages API takes on each block kind (what else a record's block carries is left out). */
const API_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text', 'citations', 'cache_control'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
  tool_use: ['type', 'id', 'name', 'input', 'caller', 'cache_control'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'],
  image: ['type', 'source', 'cache_control'],
  document: ['type', 'source', 'title', 'context', 'citations', 'cache_control'],
};

const WHITESPACE_REASON =
  'text of whitespace only, which the Messages API refuses ("text content blocks must contain non-whitespace text")';

/** What a missing result is answered with, so the turn stays one the API takes. */
const MISSING_RESULT_TEXT = 'No result was recorded for this call in the Claude Code transcript (forkpool import).';

interface Placed {
  block: Block;
  line: number;
}

interface Group {
  lines: number[];
  blocks: Placed[];
  toolUses: { id: string; name: string; line: number }[];
  results: Map<string, Placed>;
  cleaned: boolean;
}

type Turn = { kind: 'assistant'; group: Group } | { kind: 'user'; content: string | Block[]; line: number; exact: boolean };

export interface Turns {
  messages: { role: 'user' | 'assistant'; content: string | Block[] }[];
  origins: MessageOrigin[];
  dropped: DroppedRecord[];
  notes: string[];
  /** uuids of the records the messages were made from (the chain's and the ones found off it). */
  used: Set<string>;
}

const uuidOf = (record: JsonlRecord) => record.value.uuid as string;
const messageOf = (record: JsonlRecord) => record.value.message as Block;

function blocksOf(record: JsonlRecord): Block[] {
  const content = messageOf(record).content;
  return Array.isArray(content) ? (content as Block[]) : [{ type: 'text', text: content }];
}

const isWhitespaceText = (block: Block) => block.type === 'text' && typeof block.text === 'string' && block.text.trim() === '';

/**
 * `chain`: the user and assistant records of the conversation, in chain order; `records`: every
 * user and assistant record of the conversation's agent (on the chain or not), in file order.
 */
export function buildTurns(chain: readonly JsonlRecord[], records: readonly JsonlRecord[]): Turns {
  const dropped: DroppedRecord[] = [];
  const notes: string[] = [];
  const used = new Set<string>();
  let strippedFields = 0;
  const clean = (block: Block): Block => {
    const allowed = API_FIELDS[block.type as string];
    if (!allowed) return block;
    const keys = Object.keys(block);
    if (keys.every((key) => allowed.includes(key))) return block;
    strippedFields += keys.filter((key) => !allowed.includes(key)).length;
    return Object.fromEntries(Object.entries(block).filter(([key]) => allowed.includes(key)));
  };

  const byMessageId = new Map<string, JsonlRecord[]>();
  for (const record of records) {
    const id = record.value.type === 'assistant' ? messageOf(record).id : undefined;
    if (typeof id === 'string' && id !== '') byMessageId.set(id, [...(byMessageId.get(id) ?? []), record]);
  }
  const owner = new Map<string, Group>();
  const grouped = new Set<string>();
  const turns: Turn[] = [];

  const addResult = (block: Block, line: number, path: string): boolean => {
    const id = block.tool_use_id as string;
    const group = owner.get(id);
    if (group === undefined) {
      dropped.push({ line, path, what: 'a tool_result block', reason: `answers "${id}", a tool_use that is not in the conversation` });
      return false;
    }
    const earlier = group.results.get(id);
    if (earlier !== undefined) {
      dropped.push({
        line,
        path,
        what: 'a tool_result block',
        reason: `a second result for "${id}" (the one on line ${earlier.line} is kept)`,
      });
      return false;
    }
    group.results.set(id, { block: clean(block), line });
    return true;
  };

  const openGroup = (members: readonly JsonlRecord[]): Group => {
    const group: Group = { lines: [], blocks: [], toolUses: [], results: new Map(), cleaned: members.length > 1 };
    for (const member of members) {
      used.add(uuidOf(member));
      group.lines.push(member.line);
      blocksOf(member).forEach((block, b) => {
        const path = `message.content[${b}]`;
        if (isWhitespaceText(block)) {
          dropped.push({ line: member.line, path, what: 'a text block', reason: WHITESPACE_REASON });
          group.cleaned = true;
          return;
        }
        if (block.type === 'tool_use') {
          const id = block.id as string;
          if (owner.has(id)) {
            dropped.push({ line: member.line, path, what: 'a tool_use block', reason: `"${id}" again: a copy of the call written before` });
            group.cleaned = true;
            return;
          }
          owner.set(id, group);
          group.toolUses.push({ id, name: String(block.name), line: member.line });
        }
        const cleaned = clean(block);
        if (cleaned !== block) group.cleaned = true;
        group.blocks.push({ block: cleaned, line: member.line });
      });
    }
    return group;
  };

  for (const record of chain) {
    if (record.value.type === 'assistant') {
      const id = messageOf(record).id;
      if (typeof id === 'string' && id !== '') {
        if (grouped.has(id)) continue;
        grouped.add(id);
      }
      const members = typeof id === 'string' && id !== '' ? (byMessageId.get(id) as JsonlRecord[]) : [record];
      turns.push({ kind: 'assistant', group: openGroup(members) });
      continue;
    }
    used.add(uuidOf(record));
    const content = messageOf(record).content as string | Block[];
    if (typeof content === 'string') {
      if (content.trim() === '')
        dropped.push({
          line: record.line,
          what: 'a "user" record',
          reason: content === '' ? 'empty: no content' : WHITESPACE_REASON,
          message: true,
        });
      else turns.push({ kind: 'user', content, line: record.line, exact: true });
      continue;
    }
    const rest: Block[] = [];
    let exact = true;
    content.forEach((block, b) => {
      const path = `message.content[${b}]`;
      if (block.type === 'tool_result') {
        addResult(block, record.line, path);
        exact = false;
      } else if (isWhitespaceText(block)) {
        dropped.push({ line: record.line, path, what: 'a text block', reason: WHITESPACE_REASON });
        exact = false;
      } else {
        const cleaned = clean(block);
        if (cleaned !== block) exact = false;
        rest.push(cleaned);
      }
    });
    if (rest.length > 0) turns.push({ kind: 'user', content: rest, line: record.line, exact });
    else if (content.length === 0) dropped.push({ line: record.line, what: 'a "user" record', reason: 'empty: no content', message: true });
  }

  // Results written off the chain (parallel calls): every record that only answers calls of the conversation.
  for (const record of records) {
    if (used.has(uuidOf(record)) || record.value.type !== 'user') continue;
    const content = messageOf(record).content;
    if (!Array.isArray(content) || content.length === 0) continue;
    const blocks = (content as Block[]).filter((block) => !isWhitespaceText(block));
    if (!blocks.every((block) => block.type === 'tool_result' && owner.has(block.tool_use_id as string))) continue;
    used.add(uuidOf(record));
    (content as Block[]).forEach((block, b) => {
      if (block.type === 'tool_result') addResult(block, record.line, `message.content[${b}]`);
    });
  }

  const messages: Turns['messages'] = [];
  const origins: MessageOrigin[] = [];
  const lastCalls = [...turns].reverse().find((turn) => turn.kind === 'assistant' && turn.group.toolUses.length > 0);
  for (const turn of turns) {
    if (turn.kind === 'user') {
      messages.push({ role: 'user', content: turn.content });
      origins.push({ line: turn.line, path: 'message', exact: turn.exact });
      continue;
    }
    const { group } = turn;
    if (group.blocks.length === 0) {
      dropped.push({
        line: group.lines[0] as number,
        what: 'an "assistant" message',
        reason: 'nothing left in it once its whitespace-only text is left out',
        message: true,
      });
      continue;
    }
    messages.push({ role: 'assistant', content: group.blocks.map((placed) => placed.block) });
    origins.push({ line: group.lines[0] as number, path: 'message', exact: !group.cleaned });
    if (group.toolUses.length === 0) continue;
    // The conversation's last calls with no result at all: the agent was mid-turn; forks handle that.
    if (turn === lastCalls && group.results.size === 0) continue;
    const results = group.toolUses.map((call) => {
      const found = group.results.get(call.id);
      if (found) return found;
      notes.push(
        `line ${call.line}: the ${call.name} call "${call.id}" has no result in the file; it is answered with an error result saying so (the Messages API requires an answer for every call)`,
      );
      return { block: { type: 'tool_result', tool_use_id: call.id, content: MISSING_RESULT_TEXT, is_error: true }, line: call.line };
    });
    messages.push({ role: 'user', content: results.map((placed) => placed.block) });
    origins.push({ line: Math.min(...results.map((placed) => placed.line)), path: 'message', exact: false });
  }

  const merged = turns.filter((turn) => turn.kind === 'assistant' && turn.group.lines.length > 1).length;
  if (merged > 0)
    notes.unshift(`${merged} assistant message${merged === 1 ? ' was' : 's were'} written as several records (one message.id) and merged`);
  if (strippedFields > 0)
    notes.push(`${strippedFields} block field${strippedFields === 1 ? '' : 's'} that the Messages API does not take left out`);
  return { messages, origins, dropped, notes, used };
}
