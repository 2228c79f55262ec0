// Internal: importSession (src/import/load.ts), what loadSession reads a file with, returning the import's summary and origins too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { InputError } from '../../src/index.js';
import { importSession } from '../../src/import/load.js';
import { loadingOf } from '../../src/shapes/loading.js';
import { allShapes, findShape } from '../../src/shapes/registry.js';
import type { Shape } from '../../src/shapes/shape.js';
import { sampleSession } from '../fixtures/shapes/samples.js';

/*
 * The intake facet: a logged request of the shape — the body its dialect sends for the sample
 * session, as a client's log records it — is recognized as that shape and read back, through the
 * importer and the shape's session schema, to a session equal to the sample (key order included);
 * a broken message in it is an error naming the file and the body's path.
 */

const tmp = mkdtempSync(join(tmpdir(), 'forkpool-intake-parity-'));

/** The request body the shape's dialect makes of its sample session (a Gemini request's own fields: its REST body with the model beside it). */
function loggedBody(shape: Shape): { session: Record<string, unknown>; body: Record<string, unknown> } {
  const session = sampleSession(shape.format);
  const { format: _format, ...request } = shape.dialect.request(session, shape.dialect.messages(session)) as unknown as Record<
    string,
    unknown
  >;
  const body = (request.body ?? request) as Record<string, unknown>;
  return { session, body: structuredClone(body) };
}

function write(shape: Shape, name: string, body: unknown): string {
  const file = join(tmp, `${shape.format}-${name}.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

export function intakeParity(shape: Shape): void {
  it('its logged request is recognized as its shape (or as a shape registered before it that claims it alike) and read back to an equal session', async () => {
    const { session, body } = loggedBody(shape);
    const file = write(shape, 'body', body);
    const found = await importSession(file);
    const detected = findShape(found.summary.format);
    if (detected !== shape) {
      // Only a shape registered earlier, which takes the same body alike, may stand before it (the made-up shape speaks Chat Completions' wire).
      expect(detected, `${found.summary.format} read ${shape.format}'s body`).toBeDefined();
      expect(allShapes().indexOf(detected as Shape)).toBeLessThan(allShapes().indexOf(shape));
      expect(loadingOf(detected as Shape).intake.claim(body)).toEqual(loadingOf(shape).intake.claim(body));
    }
    const named = await importSession(file, { format: shape.format as never });
    expect(named.summary.format).toBe(shape.format);
    expect(named.summary.shape).toBe(shape.format);
    expect(named.summary.dropped).toEqual([]);
    expect(JSON.stringify(named.session)).toBe(JSON.stringify(session));
  });

  it('a broken message of its logged request is an error naming the file and the path in the body', async () => {
    const { session, body } = loggedBody(shape);
    const conversation = JSON.stringify(shape.messages(session));
    const key = Object.keys(body).find((name) => JSON.stringify(body[name]) === conversation);
    expect(key, 'the body holds the conversation').toBeDefined();
    (body[key as string] as unknown[])[0] = 42;
    const file = write(shape, 'broken', body);
    const error = await importSession(file, { format: shape.format as never }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${key}\\[0\\]`));
  });
}
