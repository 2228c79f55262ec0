import type { ForkTask } from '../../session/schema.js';

/*
 * What a run's messaging shows its callers (FanOutRun.send's answer, the run's settings for it):
 * types only, apart from the run's parts, so that the published types reach nothing internal.
 */

/** What became of a message sent to a fork (FanOutRun.send); `Run`: the run a revived fork continues in. */
export type SendOutcomeOf<Run> =
  /** It was live: a running fork reads it at its next turn boundary, a queued one when it starts. */
  | { status: 'delivered' }
  /** It had completed: `run` revives it from its transcript, the message its next turn (its result comes there). */
  | { status: 'revived'; run: Run }
  /** It ended failed or cancelled: a message does not revive it. */
  | { status: 'ended'; forkStatus: 'failed' | 'cancelled' }
  /** It is running but will not read it: it is ending or being stopped, or it runs in another process. */
  | { status: 'not-delivered'; reason: string }
  /** No fork of that id is live; and without transcripts, the run does not keep the ones that ended. */
  | { status: 'unknown' };

/**
 * A run's transcripts: a folder, one file per task. `continueFrom` 'crash': a fork with a
 * transcript continues from its last completed turn; 'message': a revival run's one fork acts on
 * the parent's message after the answer it ended on.
 */
type RunTranscripts = { dir: string; continueFrom?: 'crash' } | { dir: string; continueFrom: 'message'; message: string };

export interface MessagingSettings<Run> {
  /** Where each fork's transcript goes, and whether forks continue from theirs. */
  transcripts?: RunTranscripts;
  /** The pool hands forks to other processes (a distributed run): messages do not reach them. */
  remoteForks: boolean;
  /** Starts a run that revives one ended fork from its transcript, with the parent's message (undefined once the engine is closed). */
  revive?: (task: ForkTask, message: string) => Run | undefined;
}
