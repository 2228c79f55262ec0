import ts from 'typescript';

/*
 * vitest does not type-check test files (and `tsc -p .` covers src only): a test whose assertions
 * are types (a schema's type against an SDK's) compiles its own file with this.
 */

/** The type errors of `file` itself (the src files it imports are tsc's to check). */
export function typeErrorsOf(file: string): string[] {
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    verbatimModuleSyntax: true,
  });
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
