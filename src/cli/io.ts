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
    throw new UsageError(`--out: cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
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
    throw new UsageError(`${flag}: cannot write into ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}
