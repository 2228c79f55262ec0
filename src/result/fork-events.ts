import type { Finish } from '../model/finish.js';
import type { TokenUsage } from '../model/types.js';
import type { CallContent } from '../shapes/call-content.js';
import type { TranscriptEntry } from '../transcript/format.js';

/** Events a worker reports while a fork runs. */
export type WorkerEvent =
  /**
   * `responseId`: where the provider names the response at once (Anthropic): what a sibling's cache
   * diagnostics compare against. Where it does not (OpenAI compares with completed responses only),
   * the 'turn' event's responseId is.
   */
  | { type: 'response_start'; turn: number; responseId?: string }
  /**
   * A model call's end, with when it began and ended (epoch ms, as this thread's clock reads them:
   * the main thread records its span from them) and what the provider said of it.
   */
  | {
      type: 'turn';
      turn: number;
      usage: TokenUsage;
      functionCalls: number;
      startedAt?: number;
      endedAt?: number;
      finish?: Finish;
      responseId?: string;
      responseModel?: string;
      /** Only for a job that captures content. */
      content?: CallContent & { output: string };
    }
  /**
   * A model call that finally failed (its retries spent) or was cancelled: when it began and ended,
   * and what went wrong (`errorType`: the HTTP status, else the error's kind; `aborted` when cancelled).
   */
  | { type: 'call_failed'; turn: number; startedAt: number; endedAt: number; errorType: string; message: string; content?: CallContent }
  /** A line of the fork's transcript (only for a job with one). */
  | { type: 'transcript'; entry: TranscriptEntry };
