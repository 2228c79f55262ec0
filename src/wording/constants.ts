/*
 * The fork's public wording: the child message, the placeholders and the errors a model reads, word
 * for word as the reference (Qwen Code) writes them. The fork rules, the shapes, the tool host,
 * transcripts and the local simulator (which must recognize a child message) all read it here; it
 * imports nothing.
 */
/** The agent tool's name, and the subagent_type that asks for a fork (the reference's). */
export const AGENT_TOOL_NAME = 'agent';
export const FORK_SUBAGENT_TYPE = 'fork';

/** What an agent wraps injected context in (Qwen Code's), which no person wrote. */
const SYSTEM_REMINDER_OPEN = '<system-reminder>';
const SYSTEM_REMINDER_CLOSE = '</system-reminder>';

/** A text that is one injected reminder: opens with the tag and ends with its close. */
export function isReminder(text: string): boolean {
  return text.startsWith(SYSTEM_REMINDER_OPEN) && text.trimEnd().endsWith(SYSTEM_REMINDER_CLOSE);
}

export const FORK_BOILERPLATE_OPEN = '<fork-boilerplate>';
export const FORK_BOILERPLATE_CLOSE = '</fork-boilerplate>';
/** Opens the directive's line in the child message; the directive runs to the restriction block or the end. */
export const DIRECTIVE_PREFIX = 'Directive: ';
export const TOOL_RESTRICTION_OPEN = '<tool-restriction>';
export const TOOL_RESTRICTION_CLOSE = '</tool-restriction>';

/**
 * The result every sibling sees for each agent call of the parent's in-flight turn: the reference's
 * (Qwen Code's) words. The same text for every call and every fork, so the placeholders are
 * byte-identical across siblings.
 */
export const FORK_PLACEHOLDER_TEXT = 'Fork started — processing in background';

/** The result a fork sees for any other call of the parent's in-flight turn. */
export const FORK_UNAVAILABLE_RESULT_TEXT =
  'Result not available: this call had not finished when the fork started. Run it again only if you need its result and repeating it is safe.';

/** The model's short reply after the child message in the mid-turn case (the reference's words). */
export const FORK_ACK_TEXT = 'Understood. Executing directive now.';

/** The fork's first user turn in the mid-turn case (its directive is already in the history). */
export const FORK_BEGIN_TEXT = 'Begin.';

export const FORK_SYSTEM_TEXT = [
  'You are a background worker agent started by another agent to carry out one directive.',
  'Work autonomously with the tools you are given, keep to the directive, and finish with a concise report.',
].join(' ');

/**
 * Used only when a fork starts with no history and the parent has no system instruction of its own:
 * Gemini's systemInstruction (typed here by its outline: the shapes' folders import this module).
 */
export const FORK_SYSTEM_INSTRUCTION: Readonly<{ parts: { text: string }[] }> = Object.freeze({
  parts: Object.freeze([Object.freeze({ text: FORK_SYSTEM_TEXT })]) as { text: string }[],
});

/** The reference's (Qwen Code's) answer to a fork request made from inside a sub-agent, word for word. */
export const NESTED_FORK_ERROR =
  'Error: subagent_type "fork" is not supported from within a sub-agent. Complete this task directly with your own tools instead of requesting a nested fork.';

/** The reference's answer to any other agent call from inside a fork, word for word. */
export const FORK_SPAWN_ERROR = 'Error: Cannot spawn sub-agents from within a fork. Please execute tasks directly.';

/** The reference's depth-limit answer, for a general-purpose sub-agent's agent call (forkpool nests one level). */
export const SUBAGENT_DEPTH_ERROR =
  'Error: sub-agent nesting depth limit reached (max 1 level). Complete this task directly with your own tools instead of spawning another sub-agent.';
