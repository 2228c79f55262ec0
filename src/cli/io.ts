import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

/** The process streams a command uses: real ones in the bin, others in tests. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** A command's JSON result, two-space indented, to standard output or `--out FILE`; a path that cannot be written is the flag's usage error. */
export async function writeJsonOut(io: CliIo, out: string | undefined, value: unknown): Promise<void> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (out === undefined) {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFile(out, text);
  } catch (err) {
    throw new UsageError(`--out: cannot write ${out}: ${describeWriteError(err)}`);
  }
}

/**
 * A folder the run will write into (--transcripts): made if missing, and written to once (a file
 * made and removed), so that one that cannot be is the flag's usage error before anything runs.
 */
export async function requireWritableDir(flag: string, dir: string): Promise<void> {
  const probe = join(dir, `.forkpool-write-check-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, '');
    await rm(probe);
  } catch (err) {
    throw new UsageError(`${flag}: cannot write into ${dir}: ${describeWriteError(err)}`);
  }
}

/** Why a file cannot be written or opened, in the words the CLI uses for every command (reads: session/read.ts's describeReadError). */
export function describeWriteError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOENT':
      return 'its folder does not exist';
    case 'ENOTDIR':
      return 'a parent in the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EEXIST':
      return 'a file is in the way';
    default:
      return code ?? String(err);
  }
}
