import { expect, it } from 'vitest';
import { ConversionError, type ConversionResult, conversionTargets, convertSession } from '../../src/convert/index.js';
import type { ParentSession, SessionFormat } from '../../src/shapes/registry.js';
import { allShapes } from '../../src/shapes/registry.js';
import type { Shape } from '../../src/shapes/shape.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

/**
 * The convert facet: each direction is a function or a stated refusal; the shape's sample session
 * converts to every other registered shape and back, and what survives the way there and back is
 * the same conversation (texts, calls with their arguments, results), while what cannot go is
 * listed in `dropped` with dropUnsupported and is a ConversionError naming the same path without.
 */
export function convertParity(shape: Shape): void {
  it('has both directions: a function, or a refusal saying why', () => {
    for (const direction of [shape.convert.toHub, shape.convert.fromHub]) {
      if (typeof direction !== 'function') expect(direction.refused).toMatch(/\w+ \w+/);
    }
    expect(conversionTargets().includes(shape.format)).toBe(typeof shape.convert.fromHub === 'function');
  });

  for (const other of allShapes()) {
    if (other === shape) continue;
    it(`converts its sample to ${other.format} and back: what survives is equal, what cannot is listed`, () => {
      const sample = sampleSession(shape.format) as unknown as ParentSession;
      const toHub = shape.convert.toHub;
      if (typeof other.convert.fromHub !== 'function') {
        expect(() => convertSession(sample, other.format as SessionFormat)).toThrow(TypeError);
        return;
      }
      if (typeof toHub !== 'function') {
        const err = errorOf(() => convertSession(sample, other.format as SessionFormat, { source: 's.json' }));
        expect(err.message).toBe(`s.json: ${toHub.refused}`);
        return;
      }
      const there = listedOrThrown(sample, other.format);
      expect(there.from).toBe(shape.format);
      if (typeof other.convert.toHub !== 'function' || typeof shape.convert.fromHub !== 'function') return;
      const back = listedOrThrown(there.session, shape.format);
      const lost = [...there.dropped, ...back.dropped].filter(
        (item) => item.path.startsWith(shape.conversationField) || item.path.startsWith(other.conversationField),
      );
      if (lost.length === 0) expect(conversation(shape, back.session)).toEqual(conversation(shape, sample));
    });
  }
}

/**
 * Converts with dropUnsupported; then without: the same result when nothing was unsupported, else a
 * droppable ConversionError naming the first item listed.
 */
function listedOrThrown(session: ParentSession, to: string): ConversionResult {
  const result = convertSession(session, to as SessionFormat, { dropUnsupported: true });
  const unsupported = result.dropped.filter((item) => !/^(thought|empty text|whitespace-only text)$/.test(item.what));
  let strict: ConversionResult | undefined;
  let error: unknown;
  try {
    strict = convertSession(session, to as SessionFormat);
  } catch (err) {
    error = err;
  }
  if (strict) {
    expect(unsupported).toEqual([]);
    expect(strict.session).toEqual(result.session);
  } else {
    expect(error).toBeInstanceOf(ConversionError);
    const first = unsupported[0];
    expect(first, String(error)).toBeDefined();
    expect((error as ConversionError).droppable).toBe(true);
    expect((error as ConversionError).path).toBe(first?.path);
    expect((error as ConversionError).rule.startsWith(`${first?.what} cannot be converted to ${to}`)).toBe(true);
  }
  return result;
}

/**
 * A session's conversation as every shape reads it: texts, calls with their arguments, and how many
 * results. System text is left out: some shapes keep it in a field of their own (Responses'
 * instructions come back as a system message).
 */
function conversation(shape: Shape, session: object) {
  const views = shape
    .messages(session)
    .map((message) => shape.reader.view(message as never))
    .filter((view) => view.role !== 'system');
  return {
    texts: views.flatMap((view) => view.texts),
    calls: views.flatMap((view) => view.calls.map((call) => ({ name: call.name, args: call.args }))),
    results: views.reduce((n, view) => n + view.results.length, 0),
  };
}

function errorOf(fn: () => unknown): ConversionError {
  try {
    fn();
  } catch (err) {
    return err as ConversionError;
  }
  throw new Error('expected an error');
}
