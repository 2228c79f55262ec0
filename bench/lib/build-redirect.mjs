/**
 * Module hooks (node:module register) that make the bench's measuring code measure another build:
 * every module the bench imports from this checkout's dist/ is loaded from the other build's dist/
 * instead (data.from → data.to, both file URLs ending in "/dist/"), so both builds run the same
 * measuring code. A module the other build does not have fails the import with its path named: that
 * measurement cannot be compared. Registered by build-redirect-register.mjs (bench/lib/build-under-test.ts).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let from = '';
let to = '';

export function initialize(data) {
  from = data.from;
  to = data.to;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(from)) return resolved;
  const url = to + resolved.url.slice(from.length);
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(`bench: the build at ${fileURLToPath(to)} has no ${resolved.url.slice(from.length)} (imported by ${context.parentURL ?? specifier}): this measurement cannot run against that build`);
  }
  return { ...resolved, url };
}
