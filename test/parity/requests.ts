import { expect, it } from 'vitest';
import { seedFork } from '../../src/protocol.js';
// Internal: the registry's request union and dialect lookup (src/shapes/registry.ts), and the cache marks facet (src/shapes/cache-marks.ts).
import { dialectFor, type ForkSeed } from '../../src/shapes/registry.js';
import type { CacheMarks } from '../../src/shapes/cache-marks.js';
import type { Shape } from '../../src/shapes/shape.js';
import type { AnyMessage } from '../../src/shapes/view.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

/** Deep-frozen, so a facet that writes on what it was given throws. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * The requests facet: a shape makes a fork's requests from its seed (the seed's own fields, its
 * messages), measures the fields they repeat, names its telemetry operation, and its cache marks
 * write on copies only.
 */
export function requestsParity(shape: Shape): void {
  const seedOf = (): ForkSeed => seedFork(sampleSession(shape.format) as never, 'Count the parity marbles.') as ForkSeed;

  it("makes a seed's request: its messages are the seed's, in order, and its other fields the session's", () => {
    const seed = frozen(seedOf());
    expect(seed.format).toBe(shape.format);
    const request = dialectFor(shape.format).seedRequest(seed, seed.contents as AnyMessage[]);
    const sent = JSON.stringify(request);
    expect(sent).toContain('Count the parity marbles.');
    expect(sent).toContain(JSON.stringify(seed.model));
    // The sample sessions declare tools: the request carries them, and the seed's fields are measured.
    expect(sent).toMatch(/tool|functionDeclarations/);
    expect(dialectFor(shape.format).seedFieldsChars(seed)).toBeGreaterThan(0);
  });

  it('names its operation for telemetry', () => {
    expect(['chat', 'generate_content']).toContain(shape.operation);
  });

  it('puts its cache marks on copies: the conversation and the request it was given stay as they were', () => {
    const seed = frozen(seedOf());
    const messages = seed.contents as AnyMessage[];
    const request = frozen(dialectFor(shape.format).seedRequest(seed, messages));
    const before = JSON.stringify(request);
    const marks = shape.cacheMarks as CacheMarks<AnyMessage, typeof request>;
    expect(typeof marks).toBe('object');
    marks.marker?.(messages, seed.sharedContents);
    marks.openAIBreakpoints?.(messages, seed.sharedContents, true);
    for (const marked of [
      marks.breakpoints?.(request, seed.sharedContents, 0, '5m'),
      marks.cachedContent?.(request, 'cachedContents/parity'),
      marks.storedResponse?.(request, 'resp_parity'),
    ]) {
      if (marked !== undefined) expect(JSON.stringify(marked)).not.toBe(before);
    }
    if (marks.storedResponse !== undefined) expect(marks.storedResponseItems?.(request)).toBeGreaterThan(0);
    expect(JSON.stringify(request)).toBe(before);
  });
}
