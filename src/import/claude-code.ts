import { InputError } from '../input/errors.js';
import { buildTurns } from './claude-code-turns.js';
import type { JsonlRead, JsonlRecord } from './detect.js';
import type { Converted, DroppedRecord } from './summary.js';

/** max_tokens when the recording names none (the Messages API requires one): forkpool's choice, the one conversion writes too. */
const DEFAULT_MAX_TOKENS = 8192;

/*
 * Claude Code's session JSONL (~/.claude/projects/<project>/<session id>.jsonl, and each
 * sub-agent's <session id>/subagents/agent-*.jsonl). Claude Code is closed source; this reader
 * follows Anthropic's documentation of the transcript format and real transcripts (Claude Code
 * 2.0.13 to 2.1.39: test/fixtures/import/real/README.md names them):
 * - records `{ parentUuid, isSidechain, userType, cwd, sessionId, version, gitBranch, type,
 *   message, uuid, timestamp, requestId? }`; `message` is the API's (assistant: `{ model, id, type,
 *   role, content, stop_reason, usage }`; user: `{ role, content }`); bookkeeping records
 *   (`summary`, `file-history-snapshot`, `queue-operation`) have no uuid; `progress` and `system`
 *   records have one and sit on the chain;
 * - one assistant message is written as one record per content block, sharing `message.id`; with
 *   parallel calls the later tool_use records and the results hang off one another in the order
 *   they were written, so the chain passes through only some of them (claude-code-turns.ts
 *   gathers them back);
 * - a compaction writes `{ type: "system", subtype: "compact_boundary", parentUuid: null,
 *   logicalParentUuid }` and then the summary as a user record with `isCompactSummary: true`:
 *   the chain starts again at the boundary, and the records written before it are what the summary
 *   replaces (logicalParentUuid names the last of them, but it need not be in the file);
 * - a sub-agent's records carry `isSidechain: true`: in a session file (Claude Code 1.x and 2.0
 *   write them there) they are another conversation; a file whose every record is a sidechain
 *   (Claude Code 2.1's subagents/agent-*.jsonl) is that sub-agent's own conversation.
 * What forkpool reads: the parentUuid chain that ends at the file's last record with a uuid, made
 * into the Messages API's turns by claude-code-turns.ts. Every record left out is listed with why.
 * Not confirmed (no public document says): how Claude Code itself picks the leaf after a rewind.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const COMPACT_BOUNDARY = 'compact_boundary';

const isMessage = (record: JsonlRecord) => record.value.type === 'user' || record.value.type === 'assistant';
const hasUuid = (record: JsonlRecord) => typeof record.value.uuid === 'string' && record.value.uuid !== '';

export function importClaudeCode(read: JsonlRead, file: string | undefined): Converted {
  const at = file === undefined ? {} : { file };
  for (const { line, value } of read.records) {
    const fail = (path: string, rule: string): never => {
      throw new InputError({ ...at, line, path, rule });
    };
    const type = value.type;
    if (typeof type !== 'string') fail('type', 'is required: user, assistant, or a record type such as summary');
    if (type === 'user' || type === 'assistant') checkMessage(value, type, fail);
    if (value.parentUuid !== null && value.parentUuid !== undefined && typeof value.parentUuid !== 'string') {
      fail('parentUuid', 'must be the uuid of the record before it, or null');
    }
  }
  const dropped: DroppedRecord[] = [];
  const linked = read.records.filter(hasUuid);
  const subAgent = linked.some(isMessage) && linked.every((record) => record.value.isSidechain === true);
  const main = new Map<string, JsonlRecord>();
  for (const record of read.records) {
    const type = String(record.value.type);
    if (!hasUuid(record))
      dropped.push({
        line: record.line,
        what: recordName(record.value),
        reason: NO_UUID_REASONS[type] ?? 'not a message (no uuid): Claude Code bookkeeping',
      });
    else if (record.value.isSidechain === true && !subAgent)
      dropped.push({ line: record.line, what: recordName(record.value), reason: SIDECHAIN_REASON });
    else main.set(record.value.uuid as string, record);
  }
  const conversation = [...main.values()].filter(isMessage);
  if (conversation.length === 0)
    throw new InputError({ ...at, rule: 'holds no conversation: no user or assistant record outside sidechains' });

  const chain = chainTo([...main.values()].at(-1) as JsonlRecord, main);
  const boundary = chain[0]?.value.type === 'system' && chain[0].value.subtype === COMPACT_BOUNDARY ? chain[0] : undefined;
  const summaryLine = chain.find((record) => record.value.isCompactSummary === true)?.line;

  const turns = buildTurns(chain.filter(isMessage), conversation);
  dropped.push(...turns.dropped);
  for (const record of chain)
    if (!isMessage(record)) dropped.push({ line: record.line, what: recordName(record.value), reason: chainReason(record.value) });
  const onChain = new Set(chain.map((record) => record.value.uuid as string));
  for (const record of main.values()) {
    const uuid = record.value.uuid as string;
    if (onChain.has(uuid) || turns.used.has(uuid)) continue;
    // Written before the (latest) compaction: what its summary stands for, branches of then included.
    const reason =
      boundary !== undefined && record.line < boundary.line
        ? `before the compaction on line ${boundary.line}: Claude Code resumes from its summary${summaryLine === undefined ? '' : ` (line ${summaryLine})`}, not from these`
        : isMessage(record)
          ? 'a branch not on the chain (the parentUuid chain that ends at the last record): a rewound or retried turn'
          : chainReason(record.value);
    dropped.push({ line: record.line, what: recordName(record.value), reason, ...(isMessage(record) ? { message: true } : {}) });
  }

  const notes = [...turns.notes];
  if (subAgent)
    notes.unshift(
      "every record is a sidechain: read as that sub-agent's own conversation (Claude Code 2.1 keeps each sub-agent in subagents/agent-*.jsonl)",
    );
  if (boundary !== undefined)
    notes.push(
      `the compaction on line ${boundary.line} was applied: the conversation starts with its summary${summaryLine === undefined ? '' : ` (line ${summaryLine})`}`,
    );
  notes.push(`max_tokens ${DEFAULT_MAX_TOKENS}: Claude Code records none (forkpool's choice; the Messages API requires one)`);
  const model = lastModel(conversation);
  return {
    session: { format: 'anthropic-messages', messages: turns.messages, max_tokens: DEFAULT_MAX_TOKENS },
    shape: 'anthropic-messages',
    kind: subAgent ? 'a Claude Code sub-agent session (JSONL)' : 'a Claude Code session (JSONL)',
    ...(model ? { model: { name: model, from: 'records' as const } } : {}),
    dropped: dropped.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    origins: turns.origins,
    ...(read.partialLastLine !== undefined ? { partialLastLine: read.partialLastLine } : {}),
    notes,
    messageRecords: conversation.length,
  };
}

/** The parentUuid chain that ends at `leaf`, first record first. */
function chainTo(leaf: JsonlRecord, main: ReadonlyMap<string, JsonlRecord>): JsonlRecord[] {
  const chain: JsonlRecord[] = [];
  const seen = new Set<string>();
  let current: JsonlRecord | undefined = leaf;
  while (current !== undefined && !seen.has(current.value.uuid as string)) {
    seen.add(current.value.uuid as string);
    chain.push(current);
    const parent: unknown = current.value.parentUuid;
    current = typeof parent === 'string' ? main.get(parent) : undefined;
  }
  return chain.reverse();
}

function lastModel(records: readonly JsonlRecord[]): string | undefined {
  let model: string | undefined;
  for (const { value } of records) {
    const message = value.message;
    if (
      value.type === 'assistant' &&
      isRecord(message) &&
      typeof message.model === 'string' &&
      message.model !== '' &&
      message.model !== '<synthetic>'
    )
      model = message.model;
  }
  return model;
}

const SIDECHAIN_REASON =
  "a sidechain: a sub-agent's conversation, not this one (Claude Code 2.1 also writes it to <session>/subagents/agent-*.jsonl, which forkpool reads as that sub-agent's session)";

const NO_UUID_REASONS: Record<string, string> = {
  summary: 'a title for --resume, not a message',
  'file-history-snapshot': 'file backups for undo (Claude Code bookkeeping), not a message',
  checkpoint: 'a saved state marker, not a message',
  'queue-operation': 'input queue bookkeeping, not a message',
};

const SYSTEM_REASONS: Record<string, string> = {
  [COMPACT_BOUNDARY]: 'marks where Claude Code compacted the conversation (the summary after it stands for what came before)',
  local_command: 'the output of a local command as shown on screen; the user records around it carry what the model sees',
  stop_hook_summary: 'UI-only: a summary of hook runs',
  turn_duration: 'UI-only: how long a turn took',
  api_error: 'UI-only: an API error shown while retrying',
};

function chainReason(value: Record<string, unknown>): string {
  const type = String(value.type);
  if (type === 'system')
    return SYSTEM_REASONS[String(value.subtype)] ?? 'a system event (hook output, a local command), not a message the model sees';
  if (type === 'progress') return 'UI-only: progress shown while a tool runs';
  if (type === 'attachment') return 'UI-only: an attachment notice';
  return `not a message: a "${type}" event`;
}

function checkMessage(value: Record<string, unknown>, type: 'user' | 'assistant', fail: (path: string, rule: string) => never): void {
  const message = value.message;
  if (!isRecord(message)) fail('message', `is required: a ${type} record carries the API message ({ "role", "content" })`);
  if (message.role !== undefined && message.role !== type) fail('message.role', `must be "${type}" in a ${type} record`);
  const content = message.content;
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) fail('message.content', 'must be a string or an array of content blocks');
  content.forEach((block: unknown, i: number) => {
    if (!isRecord(block) || typeof block.type !== 'string') fail(`message.content[${i}]`, 'must be a content block ({ "type", … })');
    if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string')
      fail(`message.content[${i}].tool_use_id`, 'is required: the id of the tool_use it answers');
    if (block.type === 'tool_use' && (typeof block.id !== 'string' || block.id === ''))
      fail(`message.content[${i}].id`, 'is required: the id its tool_result answers');
  });
}

function recordName(value: Record<string, unknown>): string {
  const type = String(value.type);
  const name = `${/^[aeio]/.test(type) ? 'an' : 'a'} "${type}" record`;
  return typeof value.subtype === 'string' ? `${name} (${value.subtype})` : name;
}
