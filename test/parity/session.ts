import { expect, it } from 'vitest';
import { InputError, parseSession } from '../../src/index.js';
import { shapeOf } from '../../src/shapes/registry.js';
import type { Shape } from '../../src/shapes/shape.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

/** The session facet: a shape validates its sessions, routes by format, and names the path of a broken rule. */
export function sessionParity(shape: Shape): void {
  it('parses its sample session, returning that same object, and the registry finds its shape', () => {
    const session = sampleSession(shape.format);
    expect(parseSession(session)).toBe(session);
    expect(shapeOf(session)).toBe(shape);
    expect(shape.messages(session).length).toBeGreaterThan(0);
  });

  it('refuses a session whose conversation is not a list, naming the file and the path', () => {
    const session = sampleSession(shape.format);
    const conversation = shape.conversationField;
    expect(Array.isArray(session[conversation])).toBe(true);
    const broken = { ...session, [conversation]: 42 };
    let error: unknown;
    try {
      parseSession(broken, 'broken.json');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(new RegExp(`^broken\\.json: ${conversation}: `));
  });
}
