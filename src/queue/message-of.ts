/** An error's message, for a log line or a fork's failure (a thrown non-Error as its text). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
