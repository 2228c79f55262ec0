/**
 * forkpool's own warnings, in the CLI's process, as one line in its voice (`forkpool: warning: …`)
 * instead of Node's `(node:PID) [CODE] Warning: …` and its `--trace-warnings` hint. Other warnings
 * (Node's, a dependency's) keep Node's form; a library user's process is never touched.
 */
export function printOwnWarnings(stderr: NodeJS.WritableStream): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const [options, code] = rest;
    const type = typeof options === 'string' ? options : (options as { type?: string } | undefined)?.type;
    const codeOf =
      typeof options === 'object' && options !== null ? (options as { code?: string }).code : typeof code === 'string' ? code : undefined;
    if (type !== 'ForkpoolWarning' && !codeOf?.startsWith('FORKPOOL_')) {
      emit(warning, ...rest);
      return;
    }
    const message = typeof warning === 'string' ? warning : warning.message;
    stderr.write(`forkpool: warning: ${message.replace(/^forkpool: /, '')}\n`);
  }) as typeof process.emitWarning;
}
