import { shapeFormats, shapeNamed } from '../shapes/registry.js';
import type { SessionFormat } from '../shapes/registry.js';
import type { DroppedRecord, MessageOrigin } from '../shapes/intake.js';

/*
 * What an import reports: the formats it reads, what each converter hands back, and the summary
 * `forkpool import` prints (and `run` / `prompt` mention in one line).
 */

/** The agents' transcripts forkpool reads (src/import), and `forkpool`: the project's own session file. */
const TRANSCRIPT_FORMATS = ['forkpool', 'gemini-cli', 'qwen-code', 'claude-code'] as const;
type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** What `--format` / `--session-format` name: a transcript's format, or a shape's (a logged request of that shape). */
export type ImportFormat = TranscriptFormat | SessionFormat;

/** Every format `--format` / `--session-format` take: the transcripts', then each registered shape's. */
export function importFormats(): string[] {
  return [...TRANSCRIPT_FORMATS, ...shapeFormats()];
}

/** The formats in help's words: the transcripts', then on a line of their own the shapes'. */
export function importFormatsHelp(): string {
  return `${TRANSCRIPT_FORMATS.join(', ')}, or a shape's format\n(a logged request of it): ${shapeFormats().join(', ')}`;
}

export function isImportFormat(value: string): value is ImportFormat {
  return importFormats().includes(value);
}

export type { DroppedRecord, MessageOrigin } from '../shapes/intake.js';

/** A session converted to the API its model was reached through: the shape, and that API in words for what it drops. */
export interface ConvertTo {
  to: SessionFormat;
  api: string;
}

export type ModelSource = 'option' | 'file' | 'records' | 'default';

/** What one converter made of a source, before tools and the model are settled. */
export interface Converted {
  /** The session without `model` (settled by importTranscript); tools only when the source recorded them. */
  session: Record<string, unknown>;
  shape: SessionFormat;
  /** The source in words: `a Gemini CLI checkpoint (/chat save)`. */
  kind: string;
  /** The model the source names: the request body's (`file`) or the records' (`records`). */
  model?: { name: string; from: 'file' | 'records' };
  dropped: DroppedRecord[];
  origins: (MessageOrigin | undefined)[];
  partialLastLine?: number;
  /** Facts worth a line of their own (thought parts left out, a compression checkpoint applied). */
  notes: string[];
  /** The API the source's model was reached through, when it is not the shape's own: the session is converted to it. */
  convertTo?: ConvertTo;
  /** How many message records the source holds (the base of the left-out warning); absent: not counted. */
  messageRecords?: number;
}

export interface DeclaredTool {
  name: string;
  from: 'recorded' | 'module' | 'workspace';
  /** Workspace tools: the recorded tool it stands for, and how its arguments were mapped. */
  recordedAs?: string;
  mapping?: string;
}

export interface ImportSummary {
  /** The file as the user named it. */
  source?: string;
  format: ImportFormat;
  kind: string;
  shape: SessionFormat;
  /** Messages in the session (history Contents, or messages). */
  messages: number;
  /** estimateTokens of the session's JSON. */
  tokens: number;
  model: { name: string; from: ModelSource };
  /** Every tool the conversation calls, with its number of calls, in order of first use (after mapping). */
  toolsUsed: { name: string; calls: number }[];
  declared: DeclaredTool[];
  undeclared: { name: string; why: string }[];
  /** Messages recognized by src/fork/synthetic.ts: startup context, and a compacted-history summary after it. */
  synthetic: { startupContext: number; compactedSummary: number };
  dropped: DroppedRecord[];
  /** More than a tenth of the source's message records were left out: how many, of how many. */
  leftOut?: { messages: number; of: number };
  /** The last line of a JSONL file was cut off (the agent may still be writing it): left out. */
  partialLastLine?: number;
  notes: string[];
}

/** The left-out warning's figures when more than a tenth of the message records were left out. */
export function leftOutShare(dropped: readonly DroppedRecord[], messageRecords: number | undefined): ImportSummary['leftOut'] {
  if (messageRecords === undefined || messageRecords === 0) return undefined;
  const messages = dropped.filter((item) => item.message === true).length;
  return messages * 10 > messageRecords ? { messages, of: messageRecords } : undefined;
}

function leftOutLine(summary: ImportSummary): string | undefined {
  const share = summary.leftOut;
  if (share === undefined) return undefined;
  const percent = Math.round((share.messages / share.of) * 100);
  return `forkpool: ${share.messages.toLocaleString('en-US')} of the ${share.of.toLocaleString('en-US')} message records of ${summary.source ?? 'the session'} (${percent}%) are left out of the session; each is listed under "dropped" with its reason`;
}

const MODEL_SOURCES: Record<ModelSource, string> = {
  option: 'from --model',
  file: 'named by the file',
  records: "from the records (the last assistant record's model)",
  default: "the provider's default: the file names none; --model sets another",
};

const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/**
 * What was left out, counted as the left-out warning counts it: message records apart from the
 * other records and fields, so that both lines say the same figures.
 */
function droppedKinds(dropped: readonly DroppedRecord[]): string {
  const messages = dropped.filter((item) => item.message === true).length;
  const other = dropped.length - messages;
  return [
    messages > 0 ? count(messages, 'message record') : '',
    other > 0 ? `${other.toLocaleString('en-US')} other record${other === 1 ? '' : 's'} or field${other === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

/** The summary as `forkpool import` prints it on stderr. */
export function formatImportSummary(summary: ImportSummary): string {
  const lines = [
    leftOutLine(summary),
    `forkpool: imported ${summary.source ?? 'the session'} (${summary.kind}) as a session in ${shapeNamed(summary.shape).label}`,
  ];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(10)} ${text}`);
  const more = (text: string) => lines.push(`  ${' '.repeat(10)} ${text}`);
  const { startupContext, compactedSummary } = summary.synthetic;
  const synthetic = [
    startupContext > 0 ? `${count(startupContext, 'message')} of startup context` : '',
    compactedSummary > 0 ? `a compacted-history summary (${count(compactedSummary, 'message')})` : '',
  ].filter(Boolean);
  row('messages', `${summary.messages.toLocaleString('en-US')} kept${synthetic.length > 0 ? `, of which ${synthetic.join(' and ')}` : ''}`);
  row('tokens', `~${summary.tokens.toLocaleString('en-US')} (estimated: about 4 characters a token)`);
  row('model', `${summary.model.name} (${MODEL_SOURCES[summary.model.from]})`);
  row('tools', summary.toolsUsed.length === 0 ? 'none called' : summary.toolsUsed.map((t) => `${t.name} ×${t.calls}`).join(', '));
  for (const tool of summary.declared) {
    if (tool.from === 'workspace') {
      more(
        `declared ${tool.name}: forkpool's workspace tool, for the recorded ${tool.recordedAs ?? tool.name} (${tool.mapping ?? 'same arguments'})`,
      );
    } else more(`declared ${tool.name}: ${tool.from === 'module' ? 'from --tools' : 'as recorded'}`);
  }
  for (const tool of summary.undeclared) more(`undeclared ${tool.name}: ${tool.why}`);
  if (summary.dropped.length === 0) row('dropped', 'nothing');
  else {
    row('dropped', `${summary.dropped.length.toLocaleString('en-US')} left out: ${droppedKinds(summary.dropped)}`);
    for (const item of summary.dropped) {
      const where = [item.line !== undefined ? `line ${item.line}` : '', item.path ?? ''].filter(Boolean).join(' ');
      more(`${where ? `${where}: ` : ''}${item.what}: ${item.reason}`);
    }
  }
  if (summary.partialLastLine !== undefined) {
    row('partial', `line ${summary.partialLastLine} is cut off (the agent may still be writing it): left out`);
  }
  for (const note of summary.notes) row('note', note);
  return `${lines.filter((line) => line !== undefined).join('\n')}\n`;
}

/** One line for `run` and `prompt`, which read a transcript as their session. */
export function importNotice(summary: ImportSummary): string {
  const parts = [
    `${count(summary.messages, 'message')} kept`,
    summary.dropped.length > 0 ? `${summary.dropped.length.toLocaleString('en-US')} dropped (${droppedKinds(summary.dropped)})` : '',
    summary.undeclared.length > 0 ? `${count(summary.undeclared.length, 'tool')} left undeclared` : '',
    summary.partialLastLine !== undefined ? `line ${summary.partialLastLine} cut off and left out` : '',
    `model ${summary.model.name}`,
  ].filter(Boolean);
  const warning = leftOutLine(summary);
  return `${warning === undefined ? '' : `${warning}\n`}forkpool: read ${summary.source ?? 'the session'} as ${summary.kind}: ${parts.join(', ')} (forkpool import shows the details)\n`;
}
