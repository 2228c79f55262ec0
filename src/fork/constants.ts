import { deepFreeze } from '../prefix/deep-freeze.js';
import type { SystemInstruction } from '../session/schema.js';

export const FORK_BOILERPLATE_OPEN = '<fork-boilerplate>';
export const FORK_BOILERPLATE_CLOSE = '</fork-boilerplate>';

/**
 * The response every sibling sees for each call of the parent's in-flight turn. It is the same text
 * for every call and every fork, so the placeholders are byte-identical across siblings.
 */
export const FORK_PLACEHOLDER_TEXT =
  'Fork started: it is working in the background, and its result will arrive later as a task notification.';

/** The model's short reply after the child message in the mid-turn case, so the history ends on a model message. */
export const FORK_ACK_TEXT = 'Understood. I am the fork, and I will carry out my directive now.';

/** The fork's first user turn in the mid-turn case (its directive is already in the history). */
export const FORK_BEGIN_TEXT = 'Begin.';

export const FORK_SYSTEM_TEXT = [
  'You are a background worker agent started by another agent to carry out one directive.',
  'Work autonomously with the tools you are given, keep to the directive, and finish with a concise report.',
].join(' ');

/** Used only when a fork starts with no history and the parent has no system instruction of its own. */
export const FORK_SYSTEM_INSTRUCTION: Readonly<SystemInstruction> = deepFreeze({ parts: [{ text: FORK_SYSTEM_TEXT }] });
