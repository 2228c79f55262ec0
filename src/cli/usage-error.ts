/** Bad usage or bad input: the CLI prints the message and exits 2, having run nothing. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
