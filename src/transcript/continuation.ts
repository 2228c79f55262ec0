import { shapeNamed } from '../shapes/registry.js';
import type { AnyMessage, MessageReader } from '../shapes/view.js';
import type { Transcript } from './read.js';
import type { TranscriptUsage } from './format.js';

/** Where a fork picks up from its transcript: the conversation after its seed, and the stretch's figures so far. */
export interface Continuation {
  /** The messages the seeding added, as the transcript recorded them (checked against the seed made again). */
  seedMessages: unknown[];
  /** The fork's messages after its seed, up to its last completed turn, in order. */
  messages: unknown[];
  /** The last message is the model's final answer (no calls): it is acted on without a call. */
  endsOnAnswer: boolean;
  /** This stretch's completed model turns, their calls' usage, its tool calls and its last text. */
  turns: number;
  calls: TranscriptUsage[];
  toolCalls: number;
  text: string;
  /** How the latest stretch ended, when it did. */
  ended: 'completed' | 'failed' | 'cancelled' | undefined;
}

/**
 * Reads a transcript back to its last completed turn: a model reply whose calls were not all
 * answered is dropped with the answers it had (the turn runs again); a reply without calls, or a
 * text the loop added, completes one. Turns and usage count from the latest revival on: a revived
 * fork's result is its new stretch's.
 */
export function continuationOf(transcript: Transcript): Continuation {
  // The fork's messages are in the shape its header names.
  const reader = shapeNamed(transcript.header.format).reader;
  const seedMessages: unknown[] = [];
  const messages: unknown[] = [];
  let complete = 0;
  let stretch = { turns: 0, calls: [] as TranscriptUsage[], toolCalls: 0, text: '' };
  let completedStretch = stretch;
  let open: { calls: number; at: number; answered: number } | undefined;
  let ended: Continuation['ended'];
  const close = (): void => {
    complete = messages.length;
    completedStretch = { ...stretch, calls: [...stretch.calls] };
  };
  for (const line of transcript.lines) {
    if (line.type === 'resumed' && line.from === 'message') {
      stretch = { turns: 0, calls: [], toolCalls: 0, text: '' };
      close();
    }
    if (line.type === 'end') ended = line.status;
    if (line.type === 'resumed') ended = undefined;
    if (line.type !== 'message') continue;
    if (line.role === 'seed') {
      seedMessages.push(line.message);
      continue;
    }
    if (line.role === 'model') {
      // A reply after an unanswered one: the earlier turn never completed (should not happen; be safe).
      messages.length = complete;
      stretch = { ...completedStretch, calls: [...completedStretch.calls] };
      messages.push(line.message);
      const view = reader.view(line.message as AnyMessage);
      stretch.turns++;
      if (line.usage) stretch.calls.push(line.usage);
      const text = view.texts.join('');
      if (text) stretch.text = text;
      if (view.calls.length === 0) {
        open = undefined;
        close();
      } else open = { calls: view.calls.length, at: messages.length - 1, answered: 0 };
      continue;
    }
    messages.push(line.message);
    if (line.role === 'tool' && open !== undefined) {
      open.answered++;
      if (open.answered >= (line.parts ?? 1)) {
        stretch.toolCalls += open.calls;
        open = undefined;
        close();
      }
    } else if (line.role === 'user' && open === undefined) close();
  }
  messages.length = complete;
  const last = messages.at(-1);
  const endsOnAnswer = last !== undefined && isFinalAnswer(reader, last);
  return { seedMessages, messages, endsOnAnswer, ...completedStretch, ended };
}

function isFinalAnswer(reader: MessageReader, message: unknown): boolean {
  const view = reader.view(message as AnyMessage);
  return view.role === 'model' && view.calls.length === 0;
}
