import type { Failure } from '../input/failure.js';
import type { Finish } from '../model/finish.js';
import type { TokenUsage } from '../model/types.js';
import type { ForkResult } from '../result/fork-result.js';
import type { SubagentType } from '../session/schema.js';

/* What a parent agent's run reports: its events as it goes, and its outcome. */

/**
 * `toolUseId` is the model's call id (one is made up when the model gave none); `forkId` is
 * `<subagent type>-<toolUseId>` (`fork-…`, `general-purpose-…`), as the reference names its tasks.
 * Only background tasks start and notify: a foreground one's result is its tool call's result.
 */
export type ParentEvent =
  | { type: 'task_started'; forkId: string; toolUseId: string; description: string; subagentType: SubagentType; name?: string }
  /** `revived`: the task ran again on a message sent to it once it had completed (same ids, no new task_started). */
  | {
      type: 'task_notification';
      forkId: string;
      toolUseId: string;
      description: string;
      subagentType: SubagentType;
      result: ForkResult;
      revived?: boolean;
    }
  | { type: 'turn'; turn: number; usage: TokenUsage }
  /**
   * A message of the conversation as it grows, in the session's shape: the parent model's replies
   * (`assistant`, with the call's usage) and what answers them (`user`: tool results,
   * notifications); with `parentToolUseId`, a message of that task's own conversation instead
   * (its transcript's: messages of background tasks only, and only with transcripts).
   */
  | {
      type: 'message';
      role: 'assistant' | 'user';
      message: unknown;
      turn: number;
      usage?: TokenUsage;
      parentToolUseId?: string;
      /** The parent's reply: the id each of its calls goes by (the model's, or the one made up for a call without). */
      callIds?: readonly string[];
    };

/** What every outcome has: the answer so far, and the tasks it ran. */
interface OutcomeBase {
  text: string;
  turns: number;
  forks: ForkResult[];
  usage: TokenUsage;
  /** Tasks the parent itself stopped with task_stop (they end cancelled: its choice, not a failure). */
  stoppedByParent: readonly string[];
}

export type ParentOutcome =
  /** `finish`: why its last reply ended (a cut or refused one is not a whole answer: isCut). */
  | (OutcomeBase & { status: 'completed'; finish: Finish | undefined })
  | (OutcomeBase & { status: 'failed'; error: Failure<'model_error' | 'max_turns'> })
  | (OutcomeBase & { status: 'cancelled'; error: Failure<'cancelled'> });
