import { resolve } from 'node:path';
import { importFormats, importFormatsHelp, formatImportSummary, isImportFormat } from '../import/index.js';
import { importSession } from '../import/load.js';
import { loadingOf } from '../shapes/loading.js';
import { allShapes } from '../shapes/registry.js';
import type { Tool } from '../tools/define.js';
import { loadToolsModule } from '../tools/load-module.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import { writeJsonOut, type CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/** `import`'s flags: parsing and help both come from here. */
const IMPORT_FLAGS = {
  out: { type: 'string', arg: 'FILE', help: 'write the session to FILE (default: standard output)' },
  format: {
    type: 'string',
    arg: 'NAME',
    help: `read the file as ${importFormatsHelp()}\n(default: recognized by its content)`,
  },
  model: {
    type: 'string',
    arg: 'NAME',
    help: "the session's model (default: the file's, else the records', else the\nprovider's default for the session's API)",
  },
  tools: { type: 'string', arg: 'MODULE', help: "declare the tools of this module (made with defineTool), in the session's shape" },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const IMPORT_HELP = `Usage: forkpool import FILE [--out FILE] [--format NAME] [--model NAME] [--tools MODULE]

Reads another agent's transcript as a forkpool session, in the shape of the API the source
reached its model through: a Gemini CLI checkpoint (/chat save) or session recording, a Qwen
Code session JSONL (Gemini's shape, or openai-chat when Qwen Code used an OpenAI-compatible
API), a Claude Code session or sub-agent JSONL (Anthropic's), or a logged request of a shape
(docs/logged-requests.md):
${allShapes()
  .map((shape) => `  ${shape.format.padEnd(20)} ${loadingOf(shape).intake.looks}`)
  .join('\n')}
forkpool's own session files pass through. The session is written as JSON; a summary goes to
stderr: messages kept, tokens, tools used and how they are declared, the model and where it came
from, and every record (or field) left out with the reason, first the share left out when it is
more than a tenth.

${helpOf(IMPORT_FLAGS)}

${EXIT_CODES_HELP}
For import, 2 also means a file that cannot be read as a session (one of none of the formats
names the formats tried).

${examplesOf([
  ['forkpool import ~/.claude/projects/P/SESSION.jsonl --out session.json', 'a Claude Code transcript as a forkpool session'],
  ['forkpool run --session ~/.gemini/tmp/P/chats/CHAT.json --tasks t.jsonl', 'run and prompt read a transcript directly, too'],
])}`;

export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(IMPORT_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${IMPORT_HELP}\n`);
    return 0;
  }
  const [path, ...extra] = positionals;
  if (path === undefined) throw new UsageError('import: the FILE to import is required');
  if (extra.length > 0) throw new UsageError(`import: takes one FILE; ${quoted(extra[0] as string)} is one too many`);
  const format = values.format;
  if (format !== undefined && !isImportFormat(format)) {
    throw new UsageError(`import: --format must be one of ${importFormats().join(', ')}, not ${quoted(format)}`);
  }
  let tools: Tool[] | undefined;
  if (values.tools !== undefined) {
    try {
      tools = await loadToolsModule(resolve(values.tools));
    } catch (err) {
      throw new UsageError(`--tools: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const { session, summary } = await importSession(path, {
    ...(format !== undefined ? { format } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(tools !== undefined ? { tools } : {}),
  });
  await writeJsonOut(io, values.out, session);
  io.stderr.write(formatImportSummary(summary));
  return 0;
}
