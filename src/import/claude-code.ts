import { InputError } from '../session/errors.js';
import type { JsonlRead, JsonlRecord } from './detect.js';
import type { Converted, DroppedRecord, MessageOrigin } from './summary.js';

/*
 * Claude Code's session JSONL (~/.claude/projects/<project>/<session id>.jsonl). Claude Code is
 * closed source; this reader follows only:
 * - Anthropic's documentation (docs.anthropic.com/en/docs/claude-code/sdk/sdk-sessions, "Session
 *   Transcript Format"): one JSON object a line; `{"type":"user","uuid",…,"message":{"content":…}}`,
 *   `{"type":"assistant","uuid","parentUuid",…,"message":{"content":[{"type":"text",…}]}}`, and
 *   non-message lines such as `{"type":"checkpoint",…}`;
 * - public sample transcripts: marot/spotter test/fixtures/transcripts/4d5611e5-….jsonl (Claude
 *   Code 2.1.39, commit 53a088d2): records `{ parentUuid, isSidechain, userType, cwd, sessionId,
 *   version, gitBranch, type, message, uuid, timestamp, requestId? }`; `message` is the API's
 *   (assistant: `{ model, id, type, role, content, stop_reason, usage }`; user: `{ role, content }`);
 *   one assistant message is written as several records, one content block each, sharing
 *   `message.id`, each record's parentUuid the record before it; a tool_result record's parent is
 *   the record holding its tool_use (so with parallel calls the results of the earlier calls hang
 *   off the chain: `sourceToolAssistantUUID` names that record too); `progress` records (hook
 *   runs) and `file-history-snapshot` records sit in the file; `summary` records (`leafUuid`) name
 *   the session for --resume.
 * What forkpool does with it: the conversation is the parentUuid chain that ends at the last
 * record with a uuid (sidechain records, `isSidechain: true`, are another agent's and skipped);
 * the records of one assistant message (same `message.id`) are merged into one message, in chain
 * order; a tool_result record off the chain whose parent is a record of an assistant message on
 * the chain is that message's result and is kept; the results of one message make one user
 * message, in the order of its tool_use blocks. Every other record is dropped with its reason.
 * Not confirmed (no public document says): how Claude Code itself picks the leaf after a rewind,
 * and what a compaction writes (the chain simply starts where its parentUuid is null).
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

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

interface OutMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
  /** For assistant messages: its message.id, to merge the records that continue it. */
  id?: string;
  lines: number[];
  trimmed: boolean;
  results?: { block: Block; order: number }[];
}

export function importClaudeCode(read: JsonlRead, file: string | undefined): Converted {
  const fail: (line: number, path: string, rule: string) => never = (line, path, rule) => {
    throw new InputError({ ...(file === undefined ? {} : { file }), line, path, rule });
  };
  const dropped: DroppedRecord[] = [];
  const main = new Map<string, JsonlRecord>();
  let last: JsonlRecord | undefined;
  for (const record of read.records) {
    const { line, value } = record;
    const type = value.type;
    if (typeof type !== 'string') fail(line, 'type', 'is required: user, assistant, or a record type such as summary');
    if (type === 'user' || type === 'assistant') checkMessage(value, type, (path, rule) => fail(line, path, rule));
    if (value.isSidechain === true) {
      dropped.push({ line, what: recordName(type), reason: "a sidechain: a sub-agent's conversation, not this one" });
      continue;
    }
    if (typeof value.uuid !== 'string' || value.uuid === '') {
      dropped.push({ line, what: recordName(type), reason: NO_UUID_REASONS[type] ?? 'not a message (no uuid): Claude Code bookkeeping' });
      continue;
    }
    if (value.parentUuid !== null && value.parentUuid !== undefined && typeof value.parentUuid !== 'string') {
      fail(line, 'parentUuid', 'must be the uuid of the record before it, or null');
    }
    main.set(value.uuid, record);
    last = record;
  }
  if (last === undefined) throw new InputError({ ...(file === undefined ? {} : { file }), rule: 'holds no conversation: no user or assistant record outside sidechains' });

  const chain: JsonlRecord[] = [];
  const onChain = new Set<string>();
  let current: JsonlRecord | undefined = last;
  while (current !== undefined && !onChain.has(current.value.uuid as string)) {
    onChain.add(current.value.uuid as string);
    chain.push(current);
    const parent: unknown = current.value.parentUuid;
    current = typeof parent === 'string' ? main.get(parent) : undefined;
  }
  chain.reverse();

  // Results of parallel calls: off the chain, child of a record of an assistant message on it.
  const recovered = new Map<string, JsonlRecord[]>();
  for (const record of main.values()) {
    if (onChain.has(record.value.uuid as string)) continue;
    const parent = typeof record.value.parentUuid === 'string' ? main.get(record.value.parentUuid) : undefined;
    if (parent && onChain.has(parent.value.uuid as string) && parent.value.type === 'assistant' && onlyResults(record.value)) {
      recovered.set(parent.value.uuid as string, [...(recovered.get(parent.value.uuid as string) ?? []), record]);
      continue;
    }
    const type = String(record.value.type);
    const reason = type === 'user' || type === 'assistant' ? 'a branch not on the chain (the parentUuid chain that ends at the last record)' : (CHAIN_REASONS[type] ?? `not a message: a "${type}" event`);
    dropped.push({ line: record.line, what: recordName(type), reason });
  }

  const out: OutMessage[] = [];
  let stripped = 0;
  const clean = (block: Block): Block => {
    const allowed = API_FIELDS[block.type as string];
    if (!allowed) return block;
    const keys = Object.keys(block);
    if (keys.every((key) => allowed.includes(key))) return block;
    stripped += keys.filter((key) => !allowed.includes(key)).length;
    return Object.fromEntries(Object.entries(block).filter(([key]) => allowed.includes(key)));
  };
  let group: OutMessage | undefined;
  const addResults = (target: OutMessage, record: JsonlRecord) => {
    for (const block of record.value.message ? ((record.value.message as Block).content as Block[]) : []) {
      const order = toolUseOrder(target, block.tool_use_id as string);
      target.results?.push({ block: clean(block), order });
    }
    target.lines.push(record.line);
  };
  for (const record of chain) {
    const { line, value } = record;
    const type = value.type as string;
    if (type !== 'user' && type !== 'assistant') {
      dropped.push({ line, what: recordName(type), reason: CHAIN_REASONS[type] ?? `not a message: a "${type}" event` });
      continue;
    }
    const message = value.message as Block;
    if (type === 'assistant') {
      const id = typeof message.id === 'string' ? message.id : undefined;
      const blocks = (Array.isArray(message.content) ? message.content : [{ type: 'text', text: message.content }]) as Block[];
      if (group && id !== undefined && group.id === id && out.at(-1) === group) {
        (group.content as Block[]).push(...blocks.map(clean));
        group.lines.push(line);
        group.trimmed = true;
      } else {
        group = { role: 'assistant', content: blocks.map(clean), ...(id !== undefined ? { id } : {}), lines: [line], trimmed: false, results: [] };
        out.push(group);
      }
      for (const result of recovered.get(value.uuid as string) ?? []) addResults(group, result);
      continue;
    }
    if (onlyResults(value) && group && out.at(-1) === group) {
      addResults(group, record);
      continue;
    }
    const content = message.content as string | Block[];
    if (content === '' || (Array.isArray(content) && content.length === 0)) {
      dropped.push({ line, what: 'a "user" record', reason: 'empty: no content' });
      continue;
    }
    out.push({ role: 'user', content: typeof content === 'string' ? content : content.map(clean), lines: [line], trimmed: false });
  }

  // Each assistant message's results become the user message after it, in tool_use order.
  const messages: { role: 'user' | 'assistant'; content: string | Block[] }[] = [];
  const origins: MessageOrigin[] = [];
  for (const message of out) {
    messages.push({ role: message.role, content: message.content });
    origins.push({ line: message.lines[0] as number, path: 'message', exact: message.lines.length === 1 && !message.trimmed });
    if (message.results && message.results.length > 0) {
      const blocks = [...message.results].sort((a, b) => a.order - b.order).map((r) => r.block);
      messages.push({ role: 'user', content: blocks });
      origins.push({ line: message.lines[1] ?? (message.lines[0] as number), path: 'message', exact: false });
    }
  }

  let model: string | undefined;
  for (const record of chain) {
    const message = record.value.message;
    if (record.value.type === 'assistant' && isRecord(message) && typeof message.model === 'string' && message.model !== '') model = message.model;
  }
  const notes: string[] = [];
  const merged = out.filter((m) => m.role === 'assistant' && m.lines.length > 1).length;
  if (merged > 0) notes.push(`${merged} assistant message${merged === 1 ? ' was' : 's were'} written as several records (one message.id) and merged`);
  if (stripped > 0) notes.push(`${stripped} block field${stripped === 1 ? '' : 's'} that the Messages API does not take left out`);
  notes.push(`max_tokens ${DEFAULT_MAX_TOKENS}: Claude Code records none (forkpool's choice; the Messages API requires one)`);
  return {
    session: { format: 'anthropic-messages', messages, max_tokens: DEFAULT_MAX_TOKENS },
    shape: 'anthropic-messages',
    kind: 'a Claude Code session (JSONL)',
    ...(model ? { model: { name: model, from: 'records' as const } } : {}),
    dropped: dropped.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    origins,
    ...(read.partialLastLine !== undefined ? { partialLastLine: read.partialLastLine } : {}),
    notes,
  };
}

const DEFAULT_MAX_TOKENS = 8192;

const NO_UUID_REASONS: Record<string, string> = {
  summary: 'a title for --resume, not a message',
  'file-history-snapshot': 'file backups for undo (Claude Code bookkeeping), not a message',
  checkpoint: 'a saved state marker, not a message',
  'queue-operation': 'input queue bookkeeping, not a message',
};

const CHAIN_REASONS: Record<string, string> = {
  progress: 'UI-only: hook progress shown while a tool runs',
  system: 'a system event (hook output, a local command), not a message the model sees',
  attachment: 'UI-only: an attachment notice',
};

function checkMessage(value: Record<string, unknown>, type: 'user' | 'assistant', fail: (path: string, rule: string) => never): void {
  const message = value.message;
  if (!isRecord(message)) fail('message', `is required: a ${type} record carries the API message ({ "role", "content" })`);
  if (message.role !== undefined && message.role !== type) fail('message.role', `must be "${type}" in a ${type} record`);
  const content = message.content;
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) fail('message.content', 'must be a string or an array of content blocks');
  content.forEach((block: unknown, i: number) => {
    if (!isRecord(block) || typeof block.type !== 'string') fail(`message.content[${i}]`, 'must be a content block ({ "type", … })');
    if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string') fail(`message.content[${i}].tool_use_id`, 'is required: the id of the tool_use it answers');
  });
}

function onlyResults(value: Record<string, unknown>): boolean {
  const message = value.message;
  return isRecord(message) && Array.isArray(message.content) && message.content.length > 0 && message.content.every((b) => isRecord(b) && b.type === 'tool_result');
}

function toolUseOrder(message: OutMessage, id: string): number {
  const index = (message.content as Block[]).filter((b) => b.type === 'tool_use').findIndex((b) => b.id === id);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

function recordName(type: string): string {
  return `${/^[aeio]/.test(type) ? 'an' : 'a'} "${type}" record`;
}
