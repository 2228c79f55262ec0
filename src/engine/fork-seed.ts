import { seedTask, type ForkSeed, type TaskSeedDefaults } from '../fork/index.js';
import type { ForkTask, ParentSession } from '../session/schema.js';
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
