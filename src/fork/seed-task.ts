import type { AnthropicMessageLike } from '../model/types.js';
import { anthropicMessagesDialect } from '../dialect/anthropic-messages.js';
import { geminiDialect } from '../dialect/gemini.js';
import { openAIChatDialect } from '../dialect/openai-chat.js';
import { isAnthropicMessagesSession, isOpenAIChatSession, type ForkTask, type HistoryMode, type ParentSession } from '../session/schema.js';
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
export function seedTask(
  session: Readonly<ParentSession>,
  task: ForkTask,
  directive: string,
  defaults: TaskSeedDefaults,
): ForkSeed {
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
  if (isOpenAIChatSession(session)) {
    assertNotForkChild(session.messages);
    const { head, history } = openAIChatDialect.split(session);
    return {
      format: 'openai-chat',
      model: session.model,
      session,
      contents: [...head, openAIChatDialect.userText(directive)],
      sharedContents: head.length,
      seedCase: 'fresh',
      trimmedMessages: history.length,
    };
  }
  if (isAnthropicMessagesSession(session)) {
    assertNotForkChild(session.messages as unknown as readonly AnthropicMessageLike[]);
    return {
      format: 'anthropic-messages',
      model: session.model,
      session,
      contents: [anthropicMessagesDialect.userText(directive)],
      sharedContents: 0,
      seedCase: 'fresh',
      trimmedMessages: session.messages.length,
    };
  }
  assertNotForkChild(session.history);
  return {
    format: 'gemini',
    model: session.model,
    ...(session.systemInstruction !== undefined ? { systemInstruction: session.systemInstruction } : {}),
    ...(session.tools !== undefined ? { tools: session.tools } : {}),
    ...(session.toolConfig !== undefined ? { toolConfig: session.toolConfig } : {}),
    ...(session.generationConfig !== undefined ? { generationConfig: session.generationConfig } : {}),
    contents: [geminiDialect.userText(directive)],
    sharedContents: 0,
    seedCase: 'fresh',
    trimmedMessages: session.history.length,
  };
}
