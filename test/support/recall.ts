import { expect } from 'vitest';
import type { ForkEngine, ParentSession } from '../../src/index.js';

/**
 * What a fork of `session` answers to `RECALL pattern` on the local simulator: every distinct match
 * in its whole request. The directive is part of that request, so a pattern must not match its own
 * text (`[ ]` for a space).
 */
export async function recall(engine: ForkEngine, session: ParentSession, pattern: string): Promise<string[]> {
  const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'recall', directive: `RECALL ${pattern}` }]).results();
  expect(result?.status).toBe('completed');
  const text = result?.status === 'completed' ? result.text : '';
  const found = text.replace(`RECALL ${pattern}: `, '');
  return found === 'no match' ? [] : found.split(', ').sort();
}
