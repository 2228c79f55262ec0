// From source only (vitest, tsx): Piscina's entry for fork-worker.ts. tsx's hooks, registered here
// with tsx's API, load the TypeScript modules, and what a fork imports with import() (its output
// check, a transcript) too; with `--import tsx`, Piscina would require() the entry, and a module
// loaded that way cannot import() a module of its own.
import { register } from 'tsx/esm/api';

register();
const entry = await import('./fork-worker.ts');

export default entry.default;
export const startThread = entry.startThread;
