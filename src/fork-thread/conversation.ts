import type { Dialect, ToolResponse } from '../shapes/dialect.js';
import { seedDialect, seedRequest } from '../shapes/seed-request.js';
import type { AnyMessage, CallView } from '../shapes/view.js';
import type { ForkSeed } from '../fork/seed.js';
import type { RequestDecorator } from '../model/decorate.js';
import type { ModelMessage, ModelRequest } from '../model/types.js';

/**
 * A fork's conversation as it grows, in its session's own shape: what the loop sends next, and the
 * model's messages and the tool results appended to it. The loop never looks inside a message.
 */
export interface Conversation {
  request(): ModelRequest;
  /** Messages the fork already had (a transcript's, to continue from), appended as they are. */
  restore(messages: readonly unknown[]): void;
  /** A message the model sent back, appended as it came. */
  push(message: ModelMessage): void;
  /** The results of a turn's calls (one response each), then the user's texts, if any. */
  answer(calls: readonly CallView[], responses: readonly ToolResponse[], texts?: readonly string[]): void;
  say(text: string): void;
}

/**
 * Starts from a seed and grows its messages in place (a seed's contents are a fresh array of its
 * own: no copy of the whole history per fork); every request is the seed's shape's own, decorated
 * as the run's plan says (model/decorate.ts: the one request path).
 */
export function openConversation(
  seed: ForkSeed,
  decorator: RequestDecorator,
  onAdd?: (added: readonly unknown[], role: 'tool' | 'user') => void,
): Conversation {
  const dialect: Dialect<AnyMessage, unknown> = seedDialect(seed);
  const messages = decorator.start(seed.contents as AnyMessage[]);
  return {
    request: () => decorator.request(seedRequest(seed, messages)),
    restore: (earlier) => void messages.push(...(earlier as AnyMessage[])),
    push: (message) => void messages.push(message),
    answer(calls, responses, texts = []) {
      const added = dialect.answer(calls, responses, texts).messages;
      messages.push(...added);
      onAdd?.(added, 'tool');
    },
    say(text) {
      const added = dialect.userText(text);
      messages.push(added);
      onAdd?.([added], 'user');
    },
  };
}
