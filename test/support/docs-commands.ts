import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, offlineEnv, REPO_ROOT } from '../fixtures/cli/run-cli.js';

/*
 * The docs' shell commands, run as a user would paste them. Every ```sh, ```bash, ```shell or
 * ```console block of the README and docs/*.md runs, unless the line before it says why it cannot:
 *   <!-- example: not-run, why (a real provider key, npm install, the full bench) -->
 * The blocks of one document run in order, each in `bash -e -o pipefail`, in one temp dir of that
 * document's own which holds copies of the checkout's examples/, src/ and test/fixtures/ and its
 * node_modules (so a
 * block may read `examples/session.json`, run `--workspace .`, and use what an earlier block of the
 * same document wrote). `npx forkpool` and `forkpool` are this checkout's built CLI; no key is set.
 * A block that starts a server in the background (`npx forkpool serve --port 8787 &`, `redis-server
 * --port 6379 … &`) gets free ports in place of 8787 and 6379 in every line, the next line runs once
 * that port answers, and whatever the block left running is stopped when it ends.
 *
 * A ```text block right after a command block (blank lines between are fine) is that block's
 * output: what its commands wrote to stderr, then to stdout. It is compared line by line:
 *   - by default, by its lines and columns: each line equal once every figure (`14,291`, `98.9%`,
 *     `6.53`) and every hex id (`26c439c10f05`) is read as "a figure" and runs of spaces as one;
 *   - after `<!-- output: exact -->`, each line exactly (trailing spaces aside); `<!-- output: exact
 *     except time, cache -->` compares lines starting with those words by their columns only (the
 *     figures that move from run to run: wall time, forks per second);
 *   - a sample line that is only `…` stands for any number of lines.
 * FORKPOOL_DOCS_UPDATE=1 writes what the commands print now into the samples instead of failing.
 */

const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);
const NOT_RUN = /^<!--\s*example:\s*not-run\s*(?:,\s*(.*?))?\s*-->$/;
const OUTPUT = /^<!--\s*output:\s*exact(?:\s+except\s+(.+?))?\s*-->$/;
const ELLIPSIS = '…';
/** The ports a doc's background servers are written with (forkpool serve's, Redis's); each run takes free ones instead. */
const DOC_PORTS = ['8787', '6379'];

export interface OutputSample {
  /** Lines (1-based) of the sample's first and last line in the doc (the lines inside the fence). */
  readonly firstLine: number;
  readonly lastLine: number;
  readonly lines: readonly string[];
  readonly exact: boolean;
  /** With `exact`: lines starting with these words are compared by their columns only. */
  readonly except: readonly string[];
}

interface CommandBlock {
  /** Where its first command is, as `README.md:48`. */
  readonly at: string;
  readonly doc: string;
  readonly script: string;
  readonly run: boolean;
  /** Why it does not run, from its marker. */
  readonly reason: string | undefined;
  readonly output: OutputSample | undefined;
}

/** Every shell block of `doc` (a path under the checkout), with its marker and its output sample. */
export function commandBlocksOf(doc: string): CommandBlock[] {
  const lines = readFileSync(join(REPO_ROOT, doc), 'utf8').split('\n');
  const blocks: CommandBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)/.exec(lines[i] ?? '');
    if (!fence) continue;
    const end = closing(lines, i, doc);
    if (SHELLS.has(fence[1] ?? '')) {
      const marker = NOT_RUN.exec((lines[i - 1] ?? '').trim());
      if (marker && !marker[1]) throw new Error(`${doc}:${i}: a not-run marker must say why (<!-- example: not-run, reason -->)`);
      blocks.push({
        at: `${doc}:${i + 2}`,
        doc,
        script: lines.slice(i + 1, end).join('\n'),
        run: !marker,
        reason: marker?.[1],
        output: outputAfter(lines, end, doc),
      });
    }
    i = end;
  }
  return blocks;
}

function closing(lines: readonly string[], open: number, doc: string): number {
  const end = lines.findIndex((line, j) => j > open && line.trim() === '```');
  if (end < 0) throw new Error(`${doc}:${open + 1}: a code block that never closes`);
  return end;
}

/** The ```text block after the fence closing at `end`, with the output marker before it, if any. */
function outputAfter(lines: readonly string[], end: number, doc: string): OutputSample | undefined {
  let j = end + 1;
  while (j < lines.length && (lines[j] ?? '').trim() === '') j++;
  const marker = OUTPUT.exec((lines[j] ?? '').trim());
  if (marker) j++;
  if (lines[j] !== '```text') {
    if (marker) throw new Error(`${doc}:${j}: an output marker must stand right before a \`\`\`text block`);
    return undefined;
  }
  const close = closing(lines, j, doc);
  return {
    firstLine: j + 2,
    lastLine: close,
    lines: lines.slice(j + 1, close),
    exact: marker !== null,
    except: marker?.[1]?.split(',').map((word) => word.trim()) ?? [],
  };
}

/** A temp dir for one document's blocks: the checkout's examples, sources and test fixtures, and `forkpool` on the PATH. */
export function commandsDir(): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'forkpool-docs-commands-'));
  for (const path of ['examples', 'src', 'test/fixtures']) cpSync(join(REPO_ROOT, path), join(dir, path), { recursive: true });
  // A project of the user's own with the checkout's dependencies, as after `npm install ai @ai-sdk/openai`.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-commands', private: true, type: 'module' }));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const bin = mkdtempSync(join(tmpdir(), 'forkpool-docs-bin-'));
  writeFileSync(join(bin, 'forkpool'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
  chmodSync(join(bin, 'forkpool'), 0o755);
  return { dir, bin };
}

const PRELUDE = `set -e -o pipefail
trap 'status=$?; jobs=$(jobs -p); [ -z "$jobs" ] || kill $jobs 2>/dev/null; wait 2>/dev/null; exit $status' EXIT
wait_for_port() { for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 never answered" >&2; return 1; }
`;

/** The block as bash runs it: the built CLI for `npx forkpool`, free ports for the doc's, a wait after each background server. */
export function scriptOf(block: CommandBlock, ports: readonly number[]): string {
  const withPorts = (line: string): string => DOC_PORTS.reduce((text, port, i) => text.replaceAll(port, String(ports[i])), line);
  const lines = block.script.split('\n').map((line) => withPorts(line.replace(/\bnpx forkpool\b/g, 'forkpool')));
  const out: string[] = [];
  for (const line of lines) {
    out.push(line);
    const background = /^\s*(?:forkpool serve|redis-server)\b.*--port (\d+).*&\s*(#.*)?$/.exec(line);
    if (background) out.push(`wait_for_port ${background[1]}`);
  }
  return PRELUDE + out.join('\n');
}

interface BlockRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a block in `dir`, offline, with `bin` first on the PATH; killed (its whole process group) past `timeoutMs`. */
export function runBlock(script: string, dir: string, bin: string, timeoutMs: number): Promise<BlockRun> {
  return new Promise((resolve, reject) => {
    const env = offlineEnv();
    const child = spawn('bash', ['-c', script], {
      cwd: dir,
      env: { ...env, PATH: `${bin}:${env.PATH ?? ''}`, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `(killed: still running after ${timeoutMs} ms)\n`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * What a block printed, as its sample shows it: stderr's lines, then stdout's, without trailing
 * spaces or trailing blank lines, with the doc's own ports in place of the free ones it ran on.
 */
export function printedLines(run: BlockRun, ports: readonly number[]): string[] {
  const linesOf = (text: string): string[] => {
    const docPorts = ports.reduce((out, port, i) => out.replaceAll(`:${port}`, `:${DOC_PORTS[i]}`), text);
    const lines = docPorts.split('\n').map((line) => line.trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  };
  return [...linesOf(run.stderr), ...linesOf(run.stdout)];
}

/** A line by its columns: each figure and hex id read as `#`, runs of spaces as one. */
function columns(line: string): string {
  return line
    .replace(/(?<![0-9A-Za-z])(?=[0-9a-f]*\d)[0-9a-f]{8,}(?![0-9A-Za-z])/g, '#')
    .replace(/\d[\d,]*(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

function lineMatches(sample: string, actual: string, output: OutputSample): boolean {
  if (output.exact && !output.except.some((word) => sample.trimStart().startsWith(word))) return sample.trimEnd() === actual;
  return columns(sample) === columns(actual);
}

/** Whether the printed lines are what the sample shows (a `…` line stands for any number of lines). */
export function outputMatches(output: OutputSample, printed: readonly string[]): boolean {
  const sample = [...output.lines];
  while (sample.length > 0 && (sample.at(-1) ?? '').trim() === '') sample.pop();
  const match = (s: number, p: number): boolean => {
    if (s === sample.length) return p === printed.length;
    const line = sample[s] as string;
    if (line.trim() === ELLIPSIS) {
      for (let skip = p; skip <= printed.length; skip++) if (match(s + 1, skip)) return true;
      return false;
    }
    return p < printed.length && lineMatches(line, printed[p] as string, output) && match(s + 1, p + 1);
  };
  return match(0, 0);
}

/** Writes `printed` into `doc` in place of each sample (the last sample first, so the line numbers hold). */
export function updateSamples(doc: string, updates: ReadonlyArray<{ output: OutputSample; printed: readonly string[] }>): void {
  const path = join(REPO_ROOT, doc);
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const { output, printed } of [...updates].sort((a, b) => b.output.firstLine - a.output.firstLine)) {
    lines.splice(output.firstLine - 1, output.lastLine - output.firstLine + 1, ...printed);
  }
  writeFileSync(path, lines.join('\n'));
}
