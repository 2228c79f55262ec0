import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/*
 * Optional peer dependencies (the Vercel AI SDK and its provider packages) are the user's: they are
 * resolved from the project the process runs in (its working directory), as an `import` there would
 * resolve them, not from forkpool's own folder (a global install, a linked checkout).
 */

/** Imports `specifier` as the project in the working directory resolves it; a clear error when it is not installed there. */
export async function importFromProject<T>(specifier: string, directory = process.cwd()): Promise<T> {
  // Loaded here, at the first import from the project (an AI SDK provider): a run of another provider never loads it.
  const { resolve } = await import('import-meta-resolve');
  let url: string;
  try {
    url = resolve(specifier, pathToFileURL(join(directory, 'package.json')).href);
  } catch {
    throw new TypeError(`${specifier} is not installed in ${directory}: install it there (npm install ${specifier})`);
  }
  return (await import(url)) as T;
}
