// Piscina entry point: one call runs one fork in this thread. The logic lives in src/fork-thread.
import { enableCompileCache } from '../src/thread-start/compile-cache.js';

// What the thread loads from here on (the run's provider SDK, at its first call) compiles from the cache.
enableCompileCache();

export { runForkJob as default } from '../src/fork-thread/run-job.js';
export { startThread } from '../src/fork-thread/start-ahead.js';
