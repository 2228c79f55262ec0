import { seedTask, type ForkSeed, type TaskSeedDefaults } from '../fork/index.js';
import { sessionMessages, type ForkTask, type ParentSession } from '../session/schema.js';
import { outputSchemaInstruction } from './output-schema.js';

/**
 * A task's first request as the worker sends it: the directive (plus the answer format when the
 * task asks for structured output) seeded from the session. The cache accounting measures the same
 * seed, so both call this one function.
 */
export function seedForkTask(session: Readonly<ParentSession>, task: ForkTask, defaults: TaskSeedDefaults): ForkSeed {
  const directive = task.outputSchema ? task.directive + outputSchemaInstruction(task.outputSchema) : task.directive;
  return seedTask(session, task, directive, defaults);
}

/**
 * How many leading messages of the seed are the session's whole conversation, unchanged — the very
 * objects, which a seed made without copying shares — and so what a stored response of the parent
 * holds; undefined when the fork's window, a redacted call or a dropped prompt changed any of them.
 */
export function storedHeld(session: Readonly<ParentSession>, seed: ForkSeed): number | undefined {
  const messages = sessionMessages(session);
  if (seed.contents.length <= messages.length) return undefined;
  for (let i = 0; i < messages.length; i++) if (seed.contents[i] !== messages[i]) return undefined;
  return messages.length;
}
