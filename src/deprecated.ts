import type { ImportOptions, ImportResult } from './import/index.js';
import { importSession as readSessionFile } from './import/load.js';
import { warnDeprecated } from './input/deprecation.js';
import { freezePrefix as freeze, type FrozenPrefix } from './prefix/freeze.js';
import { loadTasks as readTaskFile } from './session/load.js';
import type { ReadLimits } from './session/read.js';
import type { ForkTask } from './session/schema.js';

/*
 * The entry point's deprecated names: each does what it did, and warns once per process naming
 * its replacement (src/input/deprecation.ts). The next minor version removes them.
 */

/** @deprecated Use `engine.freeze(session)`, which does the same. */
export function freezePrefix(session: unknown): FrozenPrefix {
  warnDeprecated('freezePrefix');
  return freeze(session);
}

/** @deprecated Use `loadSession(path, { onImport })`: `onImport` gets the import's summary. */
export function importSession(path: string, options?: ReadLimits & ImportOptions): Promise<ImportResult> {
  warnDeprecated('importSession');
  return readSessionFile(path, options);
}

/** @deprecated Use `streamTasks(pathOrDash, stdin)`, which `fanOut` takes as it is. */
export function loadTasks(pathOrDash: string, stdin?: NodeJS.ReadableStream, limits?: ReadLimits): Promise<ForkTask[]> {
  warnDeprecated('loadTasks');
  return readTaskFile(pathOrDash, stdin, limits);
}
