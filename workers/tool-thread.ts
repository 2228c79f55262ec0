import { parentPort, workerData } from 'node:worker_threads';
import type { ToolThreadJob } from '../src/tools/cpu-thread.js';
import { runToolThread } from '../src/tools/tool-thread.js';

// Thin entry: one call of a `cpu: true` tool, in a thread the host can end (see src/tools/cpu-thread.ts).
if (parentPort) void runToolThread(workerData as ToolThreadJob, parentPort);
