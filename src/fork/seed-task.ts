import { dialectOf } from '../shapes/index.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { ParentSession } from '../shapes/registry.js';
import { assertNotForkChild } from './guards.js';
import { seedFork, type ForkSeed } from './seed.js';

export interface TaskSeedDefaults {
  /** The history mode of tasks that do not name one. */
  history: HistoryMode;
  /** Tools that start agents: their calls are refused in a sub-agent and redacted in a mid-turn seed. */
  spawnTools: readonly string[];
}

/**
 * A task's first request: a fork of the session, or (subagentType "general-purpose") a fresh
 * sub-agent. Shares the frozen session's objects (`copy: false`): callers never edit them.
 */
export function seedTask(session: Readonly<ParentSession>, task: ForkTask, directive: string, defaults: TaskSeedDefaults): ForkSeed {
  if (task.subagentType === 'general-purpose') return seedFreshAgent(session, directive);
  return seedFork(session, directive, {
    copy: false,
    history: task.history ?? defaults.history,
    spawnTools: defaults.spawnTools,
    ...(task.forkTurns !== undefined ? { forkTurns: task.forkTurns } : {}),
    ...(task.tools !== undefined ? { allowedTools: task.tools } : {}),
  });
}

/**
 * A general-purpose sub-agent: no inherited history, the directive as its first user message, and
 * the parent's instructions, tools and settings unchanged (instructions the parent has not got
 * are not added: they would come first and break the cacheable opening).
 */
function seedFreshAgent(session: Readonly<ParentSession>, directive: string): ForkSeed {
  const dialect = dialectOf(session);
  assertNotForkChild(dialect.messages(session));
  const { head, history } = dialect.split(session);
  // The session's own objects, shared (a fresh agent's request repeats them as they are).
  const share = <T>(value: T): T => value;
  return dialect.seed(
    session,
    { head, contents: [dialect.userText(directive)], shared: 0, seedCase: 'fresh', trimmedMessages: history.length },
    { clone: share, copy: false },
  );
}
