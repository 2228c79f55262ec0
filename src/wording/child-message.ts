import {
  DIRECTIVE_PREFIX,
  FORK_BOILERPLATE_CLOSE,
  FORK_BOILERPLATE_OPEN,
  TOOL_RESTRICTION_CLOSE,
  TOOL_RESTRICTION_OPEN,
} from './constants.js';

const RULES = [
  'You are a fork: a copy of the agent, started from the conversation above to work in the background.',
  'You are not the main agent. The main agent keeps talking to the user; you only carry out the directive below.',
  'Rules:',
  '1. Do not start sub-agents or forks of your own, and do not ask the user or anyone else questions: nobody will answer.',
  '2. Use your tools directly to do the work. If something is missing or fails, work around it or report it.',
  '3. Stay within the scope of the directive. Do not take on other work mentioned earlier in the conversation.',
  '4. When done, reply with a concise report in exactly this shape:',
  '   Scope: what you were asked to do, in one line',
  '   Result: what you found or did',
  '   Key files: the files that matter for the result (or "none")',
  '   Files changed: the files you modified (or "none")',
  '   Issues: problems, doubts or follow-ups (or "none")',
];

/** The child message's opening: the rules block every fork's child message starts with, byte for byte. */
export const CHILD_OPENING = `${FORK_BOILERPLATE_OPEN}\n${RULES.join('\n')}\n${FORK_BOILERPLATE_CLOSE}`;

/**
 * The fork's instruction message: rules, the directive, then (only when the fork has an allowlist)
 * the tool restriction, in the reference's order. Everything before the directive is the same for
 * every fork, so a provider caches it along with the conversation.
 */
export function buildChildMessage(directive: string, allowedTools?: readonly string[]): string {
  const blocks = [CHILD_OPENING, `${DIRECTIVE_PREFIX}${directive}`];
  if (allowedTools !== undefined) blocks.push(toolRestriction(allowedTools));
  return blocks.join('\n\n');
}

function toolRestriction(allowedTools: readonly string[]): string {
  const names = [...new Set(allowedTools)];
  const body =
    names.length === 0
      ? 'You may not execute any tool in this run: every tool call will be rejected. Work from the conversation and your own reasoning.'
      : `You may execute only these tools: ${names.join(', ')}. A call of any other tool will be rejected, even if it is declared.`;
  return `${TOOL_RESTRICTION_OPEN}\n${body}\n${TOOL_RESTRICTION_CLOSE}`;
}
