import type { ForkSeed } from './seed.js';
import { seedTask, type TaskSeedDefaults } from './seed-task.js';
import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage } from '../shapes/view.js';
import { sessionMessages, type ParentSession } from '../shapes/registry.js';
import type { ForkTask } from '../session/schema.js';
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
 * How many leading messages of the seed the parent's last stored response holds: its input and its
 * output, so the session through its last model message — when the seed starts with exactly those,
 * the very objects (a seed made without copying shares them); undefined when the fork's window or a
 * redacted call changed any of them. What the parent added after that response (its tools'
 * outputs) is not in it: the fork sends it as its own.
 */
export function storedHeld(session: Readonly<ParentSession>, seed: ForkSeed): number | undefined {
  const messages = sessionMessages(session);
  let end = messages.length;
  while (end > 0 && viewMessage(messages[end - 1] as AnyMessage).role !== 'model') end--;
  if (end === 0 || seed.contents.length <= end) return undefined;
  for (let i = 0; i < end; i++) if (seed.contents[i] !== messages[i]) return undefined;
  return end;
}
