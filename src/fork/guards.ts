import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage } from '../shapes/view.js';
import { FORK_BOILERPLATE_OPEN } from '../wording/constants.js';

/** Forking a fork is refused: the child would inherit a directive that is not its own. */
export class ForkRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkRejectedError';
  }
}

/**
 * Whether this conversation is itself a fork child: a user text part holds an opening
 * `<fork-boilerplate>` tag, closed or not (as the reference checks: a cut-off child message counts).
 */
export function isForkChild(history: readonly AnyMessage[]): boolean {
  // A frozen history cannot change: scan it once, however many forks are seeded from it.
  const known = Object.isFrozen(history) ? verdicts.get(history) : undefined;
  if (known !== undefined) return known;
  const verdict = scan(history);
  if (Object.isFrozen(history)) verdicts.set(history, verdict);
  return verdict;
}

const verdicts = new WeakMap<readonly AnyMessage[], boolean>();

function scan(history: readonly AnyMessage[]): boolean {
  return history.some((message) => {
    const view = viewMessage(message);
    return view.role === 'user' && view.texts.some((text) => text.includes(FORK_BOILERPLATE_OPEN));
  });
}

export function assertNotForkChild(history: readonly AnyMessage[]): void {
  if (isForkChild(history)) {
    throw new ForkRejectedError(
      'cannot fork this conversation: it is itself a fork (its history holds a <fork-boilerplate> block). ' +
        'A fork does its work directly instead of starting forks of its own.',
    );
  }
}
