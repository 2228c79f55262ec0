import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../fixtures/cli/run-cli.js';

/*
 * The docs' TypeScript examples, as a user would paste them into a project of their own: every ```ts
 * block of the README and docs/*.md, written to a project whose `forkpool` is this checkout's
 * built package (a node_modules symlink, so `exports` decides what resolves, as after an install).
 * A comment on the line before a block can say how far it goes:
 *   <!-- example: types-only, why it cannot run -->   type-checked, not run
 *   <!-- example: skip, why it is not TypeScript that compiles -->   neither
 * The docs' shell blocks and their sample outputs are run and checked by docs-commands.ts.
 */

type ExampleMode = 'run' | 'types-only' | 'skip';

export interface DocsExample {
  /** Where its first line of code is, as `README.md:247`. */
  readonly at: string;
  readonly doc: string;
  /** The line of its first line of code in `doc` (1-based). */
  readonly firstLine: number;
  readonly code: string;
  readonly mode: ExampleMode;
  /** Why it does not run, from its marker. */
  readonly reason: string | undefined;
  /** Its file in the project. */
  readonly file: string;
}

const MARKER = /^<!--\s*example:\s*(types-only|skip)\s*(?:,\s*(.*?))?\s*-->$/;

/** The documents whose examples are checked: the README and every docs/*.md. */
export function docsWithExamples(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every ```ts block of `doc` (a path under the checkout), with the marker before it, written to its file in `project`; a marker without its reason throws. */
export function examplesOf(doc: string, project: string): DocsExample[] {
  const lines = readFileSync(join(REPO_ROOT, doc), 'utf8').split('\n');
  const examples: DocsExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\S*)/.exec(lines[i] ?? '');
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    if (end < 0) throw new Error(`${doc}:${i + 1}: a code block that never closes`);
    if (fence[2] === 'ts' || fence[2] === 'typescript') {
      const marker = MARKER.exec((lines[i - 1] ?? '').trim());
      const mode = (marker?.[1] as ExampleMode | undefined) ?? 'run';
      const reason = marker?.[2] || undefined;
      const at = `${doc}:${i + 2}`;
      if (marker && !reason) throw new Error(`${doc}:${i}: an example marker must say why (<!-- example: ${mode}, reason -->)`);
      const file = join(project, `${doc.replace(/[/.]/g, '-')}-${i + 2}.ts`);
      const code = `${lines.slice(i + 1, end).join('\n')}\n`;
      writeFileSync(file, code);
      examples.push({ at, doc, firstLine: i + 2, code, mode, reason, file });
    }
    i = end;
  }
  return examples;
}

/**
 * A project of the user's own in a fresh temp dir: ESM, `forkpool` linked to this checkout, and
 * the checkout's dependencies beside it (what the examples import besides forkpool: zod, ai, …).
 */
export function userProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'forkpool-docs-examples-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'docs-examples', private: true, type: 'module' }));
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  symlinkSync(REPO_ROOT, join(modules, 'forkpool'), 'dir');
  for (const entry of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (entry !== 'forkpool' && !entry.startsWith('.')) symlinkSync(join(REPO_ROOT, 'node_modules', entry), join(modules, entry), 'dir');
  }
  return project;
}

/** Type-checks every example in one program, as a strict nodenext project would: each error as `README.md:250: message`. */
export function typeErrorsOfExamples(examples: readonly DocsExample[]): string[] {
  const program = ts.createProgram(
    examples.map((e) => e.file),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const byFile = new Map(examples.map((e) => [e.file, e]));
  const errors: string[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const { file, start } = diagnostic;
    const example = file && byFile.get(file.fileName);
    if (!file || !example || start === undefined) {
      errors.push(`${file?.fileName ?? '(the project)'}: ${message}`);
      continue;
    }
    const { line } = file.getLineAndCharacterOfPosition(start);
    errors.push(`${example.doc}:${example.firstLine + line}: ${message}`);
  }
  return errors;
}
