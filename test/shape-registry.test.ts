// Internal: the shape registry (src/shapes/registry.ts) and its main-thread side (src/shapes/loading.ts): registerShape has no entry point yet; parseSession comes through forkpool.
import { describe, expect, it } from 'vitest';
import { parseSession } from '../src/index.js';
import { registerShape } from '../src/shapes/loading.js';
import { allShapes, dialectFor, findShape, formatList, shapeFormats, shapeNamed, shapeOf } from '../src/shapes/registry.js';
import { acmeShape } from './fixtures/shapes/acme.js';

/* The registry lists the shapes, and everything else asks it: parseSession routes by format through it. */

describe('the shape registry', () => {
  it("lists the five built-in shapes, Gemini's (the default) first", () => {
    expect(shapeFormats().slice(0, 5)).toEqual(['gemini', 'openai-chat', 'openai-responses', 'anthropic-messages', 'ai-sdk']);
    expect(allShapes().map((shape) => shape.format)).toEqual(shapeFormats());
    expect(shapeOf({ model: 'm', history: [] }).format).toBe('gemini');
  });

  it('refuses an unknown format, naming every known one', () => {
    expect(() => shapeNamed('acme-x')).toThrow(`unknown session format "acme-x": the formats are ${formatList()}`);
    expect(() => parseSession({ format: 'acme-x', model: 'm' })).toThrow(
      /format: must be "gemini" \(the default\), "openai-chat", .*not "acme-x"/,
    );
    expect(findShape('acme-x')).toBeUndefined();
    expect(() => registerShape({ ...acmeShape, format: 'gemini' })).toThrow('a shape with format "gemini" is already registered');
  });

  it('routes a registered sixth shape: parseSession validates it by its own rules, and its dialect answers', () => {
    if (findShape(acmeShape.format) === undefined) registerShape(acmeShape);
    expect(() => registerShape(acmeShape)).toThrow('a shape with format "acme-chat" is already registered');
    const session = { format: 'acme-chat', model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(parseSession(session)).toBe(session);
    expect(() => parseSession({ format: 'acme-chat', model: 'm', messages: [{ role: 'robot', content: 'hi' }] })).toThrow(/messages\[0\]/);
    expect(shapeOf(session)).toBe(acmeShape);
    expect(dialectFor('acme-chat').userText('hello')).toEqual({ role: 'user', content: 'hello' });
    expect(formatList()).toContain('"acme-chat"');
  });
});
