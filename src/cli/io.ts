/** The process streams a command uses: real ones in the bin, others in tests. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}
