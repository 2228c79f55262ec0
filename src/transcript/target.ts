/**
 * Where a fork's transcript is (src/transcript): written by the process that runs the fork, read
 * back by its worker thread to continue it. `continueFrom`: 'crash' picks up at its last completed
 * turn (a resumed run; a fork with no transcript yet starts afresh); 'message' revives a fork that
 * ended, with the parent's message as its next turn and a fresh turn budget.
 */
export type TranscriptTarget =
  | { path: string; continueFrom?: 'crash' }
  /** `message`: the parent's, which the revived fork acts on first. */
  | { path: string; continueFrom: 'message'; message: string };
