import { describe, expect, it } from 'vitest';
import { registerShape } from '../src/shapes/loading.js';
import { allShapes, findShape } from '../src/shapes/registry.js';
import { acmeShape } from './fixtures/shapes/acme.js';
import { convertParity } from './parity/convert.js';
import { intakeParity } from './parity/intake.js';
import { readersParity } from './parity/readers.js';
import { requestsParity } from './parity/requests.js';
import { sessionParity } from './parity/session.js';
import { transcriptParity } from './parity/transcripts.js';
import { SHAPES } from './support/shapes.js';

/*
 * The parity suite: every registered shape — the five built in, and a made-up sixth registered
 * from the test folder as a user would — has every facet, and each behaves alike. A shape that
 * lacks a facet fails here before it reaches a user. Each facet's checks live in test/parity/.
 */

if (findShape(acmeShape.format) === undefined) registerShape(acmeShape);

for (const shape of allShapes()) {
  describe(`the ${shape.format} shape`, () => {
    describe('session', () => sessionParity(shape));
    describe('convert', () => convertParity(shape));
    describe('requests', () => requestsParity(shape));
    describe('intake', () => intakeParity(shape));
    it('runs the fork rules (test/fork-rules.test.ts runs every rule on each adapter of test/support/shapes.ts)', () => {
      expect(SHAPES.map(([name]) => name)).toContain(shape.format);
    });
    describe('readers', () => readersParity(shape));
    describe('transcripts', () => transcriptParity(shape));
  });
}
