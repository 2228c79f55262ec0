import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { TranscriptLine } from './format.js';

/** Appends a task's transcript lines in order, off the caller's path: writes queue and never throw at it. */
export interface TranscriptWriter {
  write(line: TranscriptLine): void;
  /** Resolves once every line written so far is in the file and the file is closed. */
  close(): Promise<void>;
}

/**
 * Opens a task's transcript: `fresh` starts it anew (a task run again from the start), otherwise
 * lines are appended (a fork resumed or revived). A write that fails (the disk is full, the folder
 * went away) stops the transcript with one warning; the fork goes on.
 */
export function openTranscript(path: string, mode: 'fresh' | 'append'): TranscriptWriter {
  let failed = false;
  // Only its owner may read it: tool outputs can hold anything.
  let chain: Promise<FileHandle | undefined> = mkdir(dirname(path), { recursive: true, mode: 0o700 })
    .then(() => (mode === 'fresh' ? open(path, FRESH, 0o600) : openToAppend(path)))
    .catch((err: unknown) => warn(err));
  function warn(err: unknown): undefined {
    if (!failed)
      process.emitWarning(
        `the transcript ${path} could not be written (${(err as NodeJS.ErrnoException).code ?? String(err)}); the fork goes on without it`,
        'ForkpoolWarning',
      );
    failed = true;
    return undefined;
  }
  return {
    write(line) {
      if (failed) return;
      const text = `${JSON.stringify(line)}\n`;
      chain = chain.then(async (file) => {
        if (file === undefined || failed) return file;
        try {
          await file.appendFile(text);
          return file;
        } catch (err) {
          warn(err);
          await file.close().catch(() => undefined);
          return undefined;
        }
      });
    },
    async close() {
      const file = await chain;
      await file?.close().catch(() => undefined);
    },
  };
}

/**
 * Opens a transcript to add to it. A last line a crash cut off mid-write is cut away first: the
 * transcript goes on from its last whole line (what the torn line held is done again).
 */
async function openToAppend(path: string): Promise<FileHandle> {
  const file = await open(path, constants.O_RDWR | constants.O_NOFOLLOW);
  try {
    const text = await file.readFile('utf8');
    const whole = text.lastIndexOf('\n') + 1;
    if (whole < text.length) await file.truncate(Buffer.byteLength(text.slice(0, whole)));
  } finally {
    await file.close();
  }
  return open(path, APPEND);
}

/** Never through a symbolic link: a transcript is a file of its own, wherever its path came from. */
const FRESH = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;

/**
 * Where a task's transcript goes in a folder: `<id>.jsonl` for an id that is a plain file name,
 * else its safe characters and a hash of the id (two ids never share a file). Absolute, so that a
 * worker on another machine that shares the folder writes the same file.
 */
export function transcriptPath(dir: string, taskId: string): string {
  const plain = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/.test(taskId);
  const name = plain
    ? taskId
    : `${taskId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${createHash('sha256').update(taskId).digest('hex').slice(0, 12)}`;
  return join(resolve(dir), `${name}.jsonl`);
}
