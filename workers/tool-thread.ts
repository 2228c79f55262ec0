import { parentPort, workerData } from 'node:worker_threads';
import type { ToolThreadJob } from '../src/tools/cpu-thread.js';
import { enableCompileCache } from '../src/thread-start/compile-cache.js';
import { runToolThread } from '../src/tools/tool-thread.js';

// Thin entry: one call of a `cpu: true` tool, in a thread the host can end (see src/tools/cpu-thread.ts).
// What the tool imports from here on compiles from the cache.
enableCompileCache();
if (parentPort) void runToolThread(workerData as ToolThreadJob, parentPort);
