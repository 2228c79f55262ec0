#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../input/errors.js';
import { enableCompileCache } from '../thread-start/compile-cache.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';
import { printOwnWarnings } from './warnings.js';
import { nearestName, quoted } from './parse-flags.js';

const COMMANDS = ['run', 'prompt', 'serve', 'worker', 'cancel', 'convert', 'import', 'transcript', 'report', 'bench'];

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(`${(await import('./top-help.js')).topHelp()}\n`);
        return command === undefined ? 2 : 0;
      case '--version':
      case '-v':
        io.stdout.write(`${packageVersion()}\n`);
        return 0;
      // Each command loads only its own modules: a provider's SDK, BullMQ or the engine costs a
      // command that does not use it hundreds of milliseconds of start-up.
      case 'run':
        return await (await import('./run-command.js')).runCommand(rest, io);
      case 'prompt':
        return await (await import('./prompt-command.js')).promptCommand(rest, io);
      case 'serve':
        return await (await import('./serve.js')).serveCommand(rest, {
          out: (l) => io.stdout.write(`${l}\n`),
          err: (l) => io.stderr.write(`${l}\n`),
        });
      case 'bench':
        return await (await import('./bench-command.js')).benchCommand(rest, io);
      case 'convert':
        return await (await import('./convert-command.js')).convertCommand(rest, io);
      case 'import':
        return await (await import('./import-command.js')).importCommand(rest, io);
      case 'transcript':
        return await (await import('./transcript-command.js')).transcriptCommand(rest, io);
      case 'report':
        return await (await import('./report-command.js')).reportCommand(rest, io);
      case 'worker':
        return await (await import('./worker-command.js')).workerCommand(rest, io);
      case 'cancel':
        return await (await import('./cancel-command.js')).cancelCommand(rest, io);
      default: {
        const near = nearestName(command, COMMANDS);
        throw new UsageError(
          `unknown command ${quoted(command)}${near === undefined ? '' : ` (did you mean ${near}?)`}; run forkpool --help`,
        );
      }
    }
  } catch (err) {
    if (isParseArgsError(err)) {
      // Node's own text, first sentence only (the rest explains `--` for positionals), plus where to look.
      const first = (err as Error).message.split(/\.\s+/)[0]?.replace(/\.$/, '') ?? '';
      io.stderr.write(`forkpool: ${first}; see forkpool ${command ?? ''} --help\n`.replace('  ', ' '));
      return 2;
    }
    if (err instanceof UsageError || err instanceof InputError) {
      io.stderr.write(`forkpool: ${(err as Error).message}\n`);
      return 2;
    }
    io.stderr.write(`forkpool: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

function packageVersion(): string {
  // dist/src/cli or src/cli: walk up to the package root.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    dir = dirname(dir);
  }
  return 'unknown';
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === (await import('node:fs')).realpathSync(process.argv[1]);
if (isEntry) {
  // forkpool's own process: its commands' modules (imported below, each when its command runs) compile from the cache.
  enableCompileCache();
  printOwnWarnings(process.stderr);
  // A reader that goes away (`forkpool run … | head`) closes the pipe: stop quietly, as a tool killed
  // by SIGPIPE does, instead of dying on an unhandled EPIPE with a stack trace. --out lines already
  // written stay complete (each is appended synchronously).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    process.stderr.write(`forkpool: cannot write to stdout: ${err.message}\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => undefined);
  const code = await main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  // No forced exit: every command closes what it opened, and the process ends by itself
  // (test/cli-exit.test.ts holds each command to that).
  process.exitCode = code;
}
