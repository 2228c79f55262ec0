import { FORK_BOILERPLATE_CLOSE, FORK_BOILERPLATE_OPEN } from './constants.js';

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

/**
 * The fork's instruction message: rules, then the optional tool restriction, then the directive.
 * `Directive:` comes last on purpose: the directive is what a reader (and the local scripted model)
 * takes as the command, so nothing is allowed to follow it.
 */
export function buildChildMessage(directive: string, allowedTools?: readonly string[]): string {
  const blocks = [`${FORK_BOILERPLATE_OPEN}\n${RULES.join('\n')}\n${FORK_BOILERPLATE_CLOSE}`];
  if (allowedTools !== undefined) blocks.push(toolRestriction(allowedTools));
  blocks.push(`Directive: ${directive}`);
  return blocks.join('\n\n');
}

function toolRestriction(allowedTools: readonly string[]): string {
  const names = [...new Set(allowedTools)];
  const body =
    names.length === 0
      ? 'You may not execute any tool in this run: every tool call will be rejected. Work from the conversation and your own reasoning.'
      : `You may execute only these tools: ${names.join(', ')}. A call of any other tool will be rejected, even if it is declared.`;
  return `<tool-restriction>\n${body}\n</tool-restriction>`;
}
