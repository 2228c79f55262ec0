import { importFormats, importFormatsHelp, importNotice, isImportFormat } from '../import/index.js';
import type { LoadSessionOptions } from '../import/load.js';
import type { CliIo } from './io.js';
import { quoted } from './parse-flags.js';
import { UsageError } from './usage-error.js';

/** `--session-format NAME` (run, prompt): read --session as another agent's transcript. */
export const SESSION_FORMAT_FLAG = {
  type: 'string',
  arg: 'NAME',
  help: `read --session as ${importFormatsHelp()}\n(default: recognized by its content; see forkpool import --help)`,
} as const;

/** How run and prompt load --session: the format asked for, and one line on stderr when it was a transcript. */
export function sessionLoadOptions(format: string | undefined, io: Pick<CliIo, 'stderr'>): LoadSessionOptions {
  if (format !== undefined && !isImportFormat(format)) {
    throw new UsageError(`--session-format: must be one of ${importFormats().join(', ')} (got ${quoted(format)})`);
  }
  return { ...(format !== undefined ? { format } : {}), onImport: (summary) => io.stderr.write(importNotice(summary)) };
}
