import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/*
 * Where a worker entry point lives, and how to start it.
 *
 * Compiled: dist/src/thread-start/worker-entry.js → dist/workers/NAME.js, plain Node.
 * From source (vitest, tsx): src/thread-start/worker-entry.ts → workers/NAME.ts, loaded through tsx,
 * because worker threads run outside the test runner's module graph.
 */
const fromSource = import.meta.url.endsWith('.ts');

/**
 * Piscina's `filename` for a worker entry (start it with an empty execArgv: none of the parent's
 * flags). From source, workers/NAME.source.mjs, which registers tsx's hooks with tsx's API before it
 * imports the TS entry: with `--import tsx` instead, Piscina require()s the TS entry, and a module
 * loaded so cannot import() a module of its own (a fork's output check, a transcript).
 */
export function workerEntry(name: string): string {
  return fromSource ? entryFile(`${name}.source.mjs`) : entryFile(`${name}.js`);
}

/** A file of workers/, beside dist/ (compiled) or src/ (from source). */
function entryFile(file: string): string {
  return fileURLToPath(new URL(`../../workers/${file}`, import.meta.url));
}

/**
 * A plain `new Worker` on an entry. From source, `--import tsx` in a worker's execArgv does not
 * install tsx's hooks before the entry is resolved on Node 20 (ERR_UNKNOWN_FILE_EXTENSION), so a
 * tiny eval'd ESM bootstrap registers tsx programmatically, then imports the TS entry.
 */
export function startPlainWorker(name: string, options: Omit<WorkerOptions, 'eval' | 'execArgv'> = {}): Worker {
  if (!fromSource) return new Worker(entryFile(`${name}.js`), options);
  const target = pathToFileURL(entryFile(`${name}.ts`)).href;
  const bootstrap = `import(${JSON.stringify(tsxEsmApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The ESM build of tsx's `tsx/esm/api` export (require.resolve would give the CJS one). */
function tsxEsmApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> };
  const target = pkg.exports?.['./esm/api']?.import?.default;
  if (!target) throw new Error('tsx/esm/api has no ESM export');
  return new URL(target, pathToFileURL(manifest)).href;
}
